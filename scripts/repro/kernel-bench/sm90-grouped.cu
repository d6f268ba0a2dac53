// The grouped Hopper GEMM (series patch 0008, gather-qmm-sm90-grouped; an
// experiment until 2026-12-06) alone, without an MLX build: its setup and GEMM
// kernels launched as its gather_qmm_sm90_launch launches them, against the
// series' kernel at these calls (0004's rhs kernel at 0006's tile): bfloat16 x
// 4-bit weights (groups of 64) of four MoE checkpoints' expert shapes
// (common.cuh), Qwen3-30B-A3B's at 16 to 256 rows per expert, the others' at 64
// to 256, the experiment's tile of rows that of MLX's dispatch
// (gather_qmm_sm90.cu); and Qwen3-30B-A3B's with skewed rows. Not in its calls'
// time: the N-major copy of scales and biases the experiment makes first (12.6
// MB each way for Qwen3-30B-A3B). Built by ./run, once per tile (BENCH_TILE)
// and once for main (BENCH_MAIN), so that nvcc compiles the kernels in
// parallel. At 128 rows per expert of Qwen3-30B-A3B a third entry times the
// GEMM alone (sm90_grouped_gemm). With BENCH_PINGPONG=1 (the sm90-pingpong
// bench, on gather-qmm-sm90-pingpong.patch) a kernel of CUTLASS's ping-pong
// schedule instead, on 64 rows of weights a tile; sm90-pingpong.cu's main.

#include "common.cuh"

#ifndef BENCH_PINGPONG
#define BENCH_PINGPONG 0
#endif

template <int TileN, bool Pingpong = false>
Kernel sm90_grouped(const Problem& p, const Operands& o);
// The same kernels with the setup run once, when made: each call its GEMM
// alone. Back to back a call took 171 us at 128 rows per expert (up, H100,
// 2026-12-06, 3a4cf4c) where ncu gave the GEMM 116 us and the setup 9.6 in
// MLX; this entry tells which of the two the bench's extra time is in.
template <int TileN>
Kernel sm90_grouped_gemm(const Problem& p, const Operands& o);

#ifdef BENCH_MAIN

#include "harness.cuh"

int main() {
  // The kernel MLX's dispatch takes at these rows per expert: its tile of rows
  // (gather_qmm_sm90.cu's; 16 is below its threshold, timed to show why).
  auto grouped = [](int rows) -> Entry {
    switch (rows) {
      case 16:
        return {"sm90", sm90_grouped<16>};
      case 32:
        return {"sm90", sm90_grouped<32>};
      case 64:
        return {"sm90", sm90_grouped<64>};
      case 128:
        return {"sm90", sm90_grouped<128>};
      default:
        return {"sm90", sm90_grouped<256>};
    }
  };
  // Qwen3-30B-A3B's with the rows skewed over the experts, some idle, as a
  // prefill routes them (unequal and empty groups), first.
  const MoeShape& a3b = kMoeShapes[0];
  for (bool up : {true, false}) {
    for (int rows : {32, 128}) {
      std::printf(
          "# %s %s, skewed: experts=%d\n",
          a3b.name,
          up ? "up" : "down",
          a3b.experts);
      compare(
          {a3b.experts, rows, a3b.k(up), a3b.n(up), true},
          {{"series-rhs", series::rhs}, grouped(rows)});
    }
  }
  // Qwen3-30B-A3B's at 16-256 rows per expert, the other checkpoints' at the
  // prefill rows where it is for.
  for (const MoeShape& m : kMoeShapes) {
    bool qwen3_30b = &m == &kMoeShapes[0];
    std::vector<int> all_rows = qwen3_30b ? std::vector{16, 32, 64, 128, 256}
                                          : std::vector{64, 128, 256};
    for (bool up : {true, false}) {
      for (int rows : all_rows) {
        std::printf(
            "# %s %s: experts=%d\n", m.name, up ? "up" : "down", m.experts);
        std::vector<Entry> entries{{"series-rhs", series::rhs}, grouped(rows)};
        if (qwen3_30b && rows == 128) {
          entries.push_back({"sm90-gemm-only", sm90_grouped_gemm<128>});
        }
        compare({m.experts, rows, m.k(up), m.n(up)}, entries);
      }
    }
  }
}

#else // one kernel: BENCH_TILE

#include "mlx/backend/cuda/quantized/qmm/gather_qmm_sm90.cuh"

// With setup_each_call false, the setup runs once here and a call is the GEMM.
template <int TileN, bool Pingpong>
Kernel grouped_kernel(const Problem& p, const Operands& o, bool setup_each_call) {
  using Element = cutlass::bfloat16_t;
  using Tiler =
      cute::Shape<cute::Int<Pingpong ? 64 : 128>, cute::Int<TileN>, cute::_64>;
#if BENCH_PINGPONG
  using Gemm = mlx::core::cu::
      gather_qmm_sm90_kernel_t<Element, cutlass::uint4b_t, Tiler, Pingpong>;
#else
  using Gemm =
      mlx::core::cu::gather_qmm_sm90_kernel_t<Element, cutlass::uint4b_t, Tiler>;
#endif
  int groups = p.experts, rows = p.rows(), k = p.k, n = p.n;
  using Arrays = mlx::core::GroupArrays<Gemm>;
  char* arrays_memory =
      device_array<char>(Arrays::carve(nullptr, nullptr, groups));
  Arrays g;
  Arrays::carve(&g, arrays_memory, groups);
  auto args = mlx::core::grouped_arguments<Gemm>(g, groups, kGroupSize);
  auto* workspace =
      device_array<char>(std::max<size_t>(Gemm::get_workspace_size(args), 1));
  auto params = Gemm::to_underlying_arguments(args, workspace);
  size_t smem = Gemm::SharedStorageSize;
  auto kernel = cutlass::device_kernel<Gemm>;
  CHECK(cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));

  // One call as MLX makes it: setup, GEMM, on N-major scales and biases.
  auto setup = [=] {
    constexpr int per_block = mlx::core::kSetupExpertsPerBlock;
    mlx::core::gather_qmm_sm90_groups<Gemm>
        <<<(groups + per_block - 1) / per_block, 32 * per_block>>>(
        o.rhs,
        rows,
        n,
        k,
        4,
        kGroupSize,
        groups,
        static_cast<const char*>(o.x),
        reinterpret_cast<const char*>(o.w),
        static_cast<const char*>(o.scales_n_major),
        static_cast<const char*>(o.biases_n_major),
        static_cast<char*>(o.out),
        g);
  };
  if (!setup_each_call) {
    setup();
    CHECK(cudaDeviceSynchronize());
  }
  auto call = [=] {
    if (setup_each_call) {
      setup();
    }
    kernel<<<Gemm::get_grid_shape(params), Gemm::get_block_shape(), smem>>>(
        params);
  };
  return {call, [=] {
            for (void* q : {(void*)arrays_memory, (void*)workspace}) {
              CHECK(cudaFree(q));
            }
          }};
}

template <int TileN, bool Pingpong>
Kernel sm90_grouped(const Problem& p, const Operands& o) {
  return grouped_kernel<TileN, Pingpong>(p, o, true);
}

template <int TileN>
Kernel sm90_grouped_gemm(const Problem& p, const Operands& o) {
  return grouped_kernel<TileN, false>(p, o, false);
}

template Kernel sm90_grouped<BENCH_TILE, BENCH_PINGPONG>(
    const Problem&,
    const Operands&);
#if !BENCH_PINGPONG
template Kernel sm90_grouped_gemm<BENCH_TILE>(const Problem&, const Operands&);
#endif

#endif
