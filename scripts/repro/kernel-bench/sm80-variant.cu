// A variant of the series' sm80 kernels against the series' own, in one
// process: an experiment patch that changes device/qmm_sm80.cuh
// (qmm-sm80-stages.patch: 5 pipeline stages at the 16-row tile;
// qmm-sm80-prologue-unbounded.patch: 0004's prologue bound undone, stock's
// mainloop). ./run compiles series.cu twice, from the series and from the
// series with the patch, the second under other names (-Dmlx=mlx_variant
// -Dseries=variant), so that both kernels live in one binary. Neither
// patch changes a product or its order, so values_differing_from_first must be
// 0 everywhere. Calls: 128 experts, 1-256 rows per expert, Qwen3-30B-A3B's up
// and down projections; the per-row kernel where the series takes it (under 4
// rows per expert), 0004's rhs kernel at every row count; up to 16 rows per
// expert both also at a 64-feature tile (decode candidates: twice the blocks).

#include "common.cuh"
#include "harness.cuh"

// series.cu's entry points, compiled from the series with the patch.
namespace variant {
Kernel per_row(const Problem& p, const Operands& o);
Kernel per_row_n64(const Problem& p, const Operands& o);
Kernel rhs(const Problem& p, const Operands& o);
Kernel rhs_n64(const Problem& p, const Operands& o);
} // namespace variant

int main() {
  for (auto [k, n] : {std::pair{2048, 768}, std::pair{768, 2048}}) {
    for (int rows : {1, 2, 4, 8, 16, 64, 256}) {
      std::vector<Entry> entries{
          {"series-rhs", series::rhs}, {"variant-rhs", variant::rhs}};
      if (rows <= 16) {
        entries.insert(
            entries.end(),
            {{"series-rhs-n64", series::rhs_n64},
             {"variant-rhs-n64", variant::rhs_n64}});
      }
      if (rows < 4) {
        entries.insert(
            entries.begin(),
            {{"series-per-row", series::per_row},
             {"variant-per-row", variant::per_row},
             {"series-per-row-n64", series::per_row_n64},
             {"variant-per-row-n64", variant::per_row_n64}});
      }
      compare({128, rows, k, n}, entries);
    }
  }
}
