// 0008's grouped GEMM with CUTLASS's ping-pong schedule against its
// cooperative one (the series' kernel), alone, without an MLX build
// (scripts/repro/experiments/gather-qmm-sm90-pingpong.patch makes the schedule
// a template parameter): issue 26's prefill at 64-256 rows per expert on
// Qwen3-30B-A3B's shapes, uniform and skewed. In ping-pong two consumer warp
// groups take turns, one's epilogue beside the other's mainloop, which a
// short K may want (the down projection's 768: 12 k-tiles of 64); in
// cooperative both share a tile of 128 rows of weights. Built by ./run: the
// kernels from sm90-grouped.cu once per tile and schedule, this file for main.

#include "common.cuh"

template <int TileN, bool Pingpong = false>
Kernel sm90_grouped(const Problem& p, const Operands& o);

#include "harness.cuh"

// Both schedules at a tile of TileN rows.
template <int TileN>
std::vector<Entry> schedules() {
  return {
      {"sm90-cooperative", sm90_grouped<TileN, false>},
      {"sm90-pingpong", sm90_grouped<TileN, true>}};
}

int main() {
  // The tile of rows of MLX's dispatch (gather_qmm_sm90.cu) at these rows.
  auto entries = [](int rows) {
    return rows == 64 ? schedules<64>()
        : rows == 128 ? schedules<128>()
                      : schedules<256>();
  };
  const MoeShape& a3b = kMoeShapes[0];
  for (bool skewed : {false, true}) {
    for (bool up : {true, false}) {
      for (int rows : {64, 128, 256}) {
        std::printf(
            "# %s %s%s: experts=%d\n",
            a3b.name,
            up ? "up" : "down",
            skewed ? ", skewed" : "",
            a3b.experts);
        compare({a3b.experts, rows, a3b.k(up), a3b.n(up), skewed}, entries(rows));
      }
    }
  }
}
