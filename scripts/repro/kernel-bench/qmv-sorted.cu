// The sorted decode experiment's kernel (scripts/repro/experiments/
// gather-qmv-sorted.patch, qmv_sorted.cuh) alone, without an MLX build, against
// the series' kernel at these calls: at 1 and 2 rows per expert the per-row
// qmm_sm80_kernel (stock's too; 0004's rhs kernel beside it), at 4 and 8 the
// rhs kernel (128 experts of bfloat16 x 4-bit weights, groups of 64; issue
// 26's decode points).
// tbps counts the bytes a call must move (every expert's weights, scales and
// biases, x and the output), issue 26's measure. Built by ./run, once per form
// (BENCH_PREFETCH: true or false) and once for main (BENCH_MAIN).

#include "common.cuh"

template <bool Prefetch>
Kernel qmv_sorted(const Problem& p, const Operands& o);

#ifdef BENCH_MAIN

#include "harness.cuh"

int main() {
  // Qwen3-30B-A3B's expert projections: up (K 2048, N 768) and down.
  for (auto [k, n] : {std::pair{2048, 768}, std::pair{768, 2048}}) {
    for (int rows : {1, 2, 4, 8}) {
      std::vector<Entry> entries{
          {"series-rhs", series::rhs},
          {"qmv-sorted", qmv_sorted<false>},
          {"qmv-sorted-prefetch", qmv_sorted<true>}};
      // Under 4 rows per expert the series keeps the per-row path (0004's
      // threshold): the baseline there, and the rhs kernel a candidate.
      if (rows < 4) {
        entries.insert(entries.begin(), {"series-per-row", series::per_row});
      }
      compare({128, rows, k, n}, entries);
    }
  }
}

#else // one form: BENCH_PREFETCH

#include "mlx/backend/cuda/quantized/qmm/qmv_sorted.cuh"

template <bool Prefetch>
Kernel qmv_sorted(const Problem& p, const Operands& o) {
  using Element = cutlass::bfloat16_t;
  return {[=] {
    mlx::core::cu::gather_qmv_sorted<kGroupSize, true, Prefetch>(
        static_cast<const Element*>(o.x),
        reinterpret_cast<const cutlass::uint4b_t*>(o.w),
        static_cast<const Element*>(o.scales),
        static_cast<const Element*>(o.biases),
        static_cast<Element*>(o.out),
        o.lhs,
        o.rhs,
        p.n,
        p.k,
        p.rows(),
        p.experts,
        [](void* kernel, dim3 blocks, dim3 threads, void** args) {
          CHECK(cudaLaunchKernel(kernel, blocks, threads, args, 0, nullptr));
        });
  }};
}

template Kernel qmv_sorted<BENCH_PREFETCH>(const Problem&, const Operands&);

#endif
