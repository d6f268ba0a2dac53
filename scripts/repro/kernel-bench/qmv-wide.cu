// The decode experiment's kernel (scripts/repro/experiments/gather-qmv-wide.patch,
// qmv_wide.cuh) alone, without an MLX build, against the series' kernels at
// the same calls: the per-row qmm_sm80_kernel (what the series runs under 4
// rows per expert) and 0004's rhs kernel; issue 26's item 2 (sorted gather_qmm
// at 1-8 rows per expert at >= 2.4 TB/s of the bytes a call must move). Its
// forms: Features per warp, Rows per pass and Stages (steps of weights in
// flight; MLX's dispatch takes 8, 2 and 2), and its unsorted mode at one
// sequence's decode step (8 rows, 8 experts). On an H100 (2026-12-06,
// ccefcbe) 4 features a warp and 4 steps were slower at every sorted shape,
// and at 4 and 8 rows per expert the rhs kernel won by 1.3-5.4x: left out
// since. More features a warp share each step's x among more weights: by an
// estimate of the instructions issued, they fill about a third of its time at
// 1 row (up). qmv-mma, the tensor-core form (gather_qmv_mma_kernel; MLX takes
// it behind a run-time switch), issues about a third as many per weight and
// takes up to 8 rows per expert for the weight traffic of one: timed at 1-8
// rows per expert. Outputs: float32 sums in another order than the series' kernels, so
// not bit-identical; the harness checks them against float32
// (max_error_over_rms). Built by ./run from the series with the patch.

#include "common.cuh"
#include "harness.cuh"

#include "mlx/backend/cuda/quantized/qmm/qmv_wide.cuh"

namespace {

// Both kernels of qmv_wide.cuh, which take the same arguments: a block row per
// expert (sorted) or per row, kWideWarps warps of `features` features.
template <typename K>
Kernel launch(
    K kernel,
    int features,
    size_t smem,
    bool sorted,
    const Problem& p,
    const Operands& o) {
  namespace cu = mlx::core::cu;
  dim3 blocks(
      (p.n + cu::kWideWarps * features - 1) / (cu::kWideWarps * features),
      sorted ? p.experts : p.rows());
  return {[=] {
    kernel<<<blocks, cu::kWideWarps * 32, smem>>>(
        static_cast<const Bf16*>(o.x),
        o.w,
        static_cast<const Bf16*>(o.scales),
        static_cast<const Bf16*>(o.biases),
        static_cast<Bf16*>(o.out),
        o.lhs,
        o.rhs,
        p.n,
        p.k,
        p.rows());
  }};
}

// Sorted: passes of Rows rows an expert; unsorted: Rows 1.
template <int Features, int Rows, int Stages, bool Sorted = true>
Kernel qmv_wide(const Problem& p, const Operands& o) {
  // A warp's loads take Features whole rows of weights.
  if (p.n % Features) {
    std::fprintf(stderr, "qmv-wide: N %d not a multiple of %d\n", p.n, Features);
    std::exit(1);
  }
  namespace cu = mlx::core::cu;
  auto kernel = cu::gather_qmv_wide_kernel<Features, Rows, Stages, Sorted>;
  size_t smem = cu::wide::smem_bytes<Features, Rows, Stages>(p.k);
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  return launch(kernel, Features, smem, Sorted, p, o);
}

// The tensor-core form: passes of 8 rows an expert (sorted), 16 features a
// warp, no shared memory.
template <bool Sorted = true>
Kernel qmv_mma(const Problem& p, const Operands& o) {
  if (p.n % 16 || p.k % 256) {
    std::fprintf(stderr, "qmv-mma: N %d or K %d not a multiple of 16, 256\n", p.n, p.k);
    std::exit(1);
  }
  return launch(mlx::core::cu::gather_qmv_mma_kernel<Sorted>, 16, 0, Sorted, p, o);
}

} // namespace

int main() {
  // Qwen3-30B-A3B's expert projections: up (K 2048, N 768) and down.
  for (auto [k, n] : {std::pair{2048, 768}, std::pair{768, 2048}}) {
    // Under 4 rows per expert the series keeps the per-row path (0004's
    // threshold): the baseline there; from 4 on, 0004's rhs kernel.
    for (int rows : {1, 2}) {
      compare(
          {128, rows, k, n},
          {{"series-per-row", series::per_row},
           {"series-rhs", series::rhs},
           {"qmv-wide-f8-r2-s2", qmv_wide<8, 2, 2>},
           {"qmv-wide-f8-r1-s2", qmv_wide<8, 1, 2>},
           {"qmv-wide-f16-r2-s2", qmv_wide<16, 2, 2>},
           {"qmv-wide-f8-r2-s3", qmv_wide<8, 2, 3>},
           {"qmv-mma", qmv_mma<>}});
    }
    for (int rows : {4, 8}) {
      compare({128, rows, k, n}, {{"series-rhs", series::rhs}, {"qmv-mma", qmv_mma<>}});
    }
    // x's rows through a reversed lhs (the rhs kernel reads none: left out),
    // so a kernel that took row r for lhs[r] fails its check.
    compare(
        {128, 3, k, n, false, true},
        {{"series-per-row", series::per_row},
         {"qmv-wide-f8-r2-s2", qmv_wide<8, 2, 2>},
         {"qmv-mma", qmv_mma<>}});
  }
  // One sequence's decode step: its 8 rows go to 8 different experts, and
  // only those experts' weights are read. mlx-lm leaves 8 indices unsorted,
  // so the series runs the per-row kernel; the wide kernel's unsorted mode
  // takes a block row per row.
  for (auto [k, n] : {std::pair{2048, 768}, std::pair{768, 2048}}) {
    compare(
        {8, 1, k, n, false, true},
        {{"series-per-row", series::per_row},
         {"qmv-wide-unsorted-f8-s2", qmv_wide<8, 1, 2, false>},
         {"qmv-wide-unsorted-f16-s2", qmv_wide<16, 1, 2, false>},
         {"qmv-mma-unsorted", qmv_mma<false>}});
  }
}
