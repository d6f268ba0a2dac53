// The grouped Hopper experiment (scripts/repro/experiments/
// gather-qmm-sm90-grouped.patch) alone, without an MLX build: its setup,
// bias-term and GEMM kernels launched as its gather_qmm_sm90_launch launches
// them, in both forms, against the series' kernel at these calls (0004's rhs
// kernel at 0006's tile): 128 experts of bfloat16 x 4-bit weights (groups of
// 64) at 128 and 256 rows each. Not in its calls' time: the N-major copy of
// scales and biases the experiment makes first (12.6 MB each way here). Built
// by ./run, once per kernel (BENCH_TILE, BENCH_BIAS: true or false) and once for
// main (BENCH_MAIN), so that nvcc compiles the kernels in parallel.

#include "common.cuh"

template <int TileN, bool Bias>
Kernel sm90_grouped(const Problem& p, const Operands& o);

#ifdef BENCH_MAIN

#include "harness.cuh"

int main() {
  // Qwen3-30B-A3B's expert projections: up (K 2048, N 768) and down.
  for (auto [k, n] : {std::pair{2048, 768}, std::pair{768, 2048}}) {
    compare(
        {128, 128, k, n},
        {{"series-rhs", series_rhs},
         {"sm90-affine-tile128", sm90_grouped<128, false>},
         {"sm90-scales-bias-tile128", sm90_grouped<128, true>}});
    compare(
        {128, 256, k, n},
        {{"series-rhs", series_rhs},
         {"sm90-affine-tile256", sm90_grouped<256, false>},
         {"sm90-scales-bias-tile256", sm90_grouped<256, true>}});
  }
}

#else // one kernel: BENCH_TILE, BENCH_BIAS

#include "mlx/backend/cuda/quantized/qmm/gather_qmm_sm90.cuh"

template <int TileN, bool Bias>
Kernel sm90_grouped(const Problem& p, const Operands& o) {
  using Element = cutlass::bfloat16_t;
  using Gemm = mlx::core::cu::gather_qmm_sm90_kernel_t<
      Element,
      cutlass::uint4b_t,
      cute::Shape<cute::_128, cute::Int<TileN>, cute::_64>,
      Bias>;
  int groups = p.experts, rows = p.rows(), k = p.k, n = p.n;
  auto* bias_term = Bias ? device_array<float>(size_t(rows) * n) : nullptr;
  using Arrays = mlx::core::GroupArrays<Gemm>;
  char* arrays_memory =
      device_array<char>(Arrays::carve(nullptr, nullptr, groups));
  Arrays g;
  Arrays::carve(&g, arrays_memory, groups);
  auto args = mlx::core::grouped_arguments<Gemm, Bias>(g, groups, kGroupSize);
  auto* workspace = device_array<char>(
      std::max<size_t>(Gemm::get_workspace_size(args), 1));
  auto params = Gemm::to_underlying_arguments(args, workspace);
  size_t smem = Gemm::SharedStorageSize;
  auto kernel = cutlass::device_kernel<Gemm>;
  CHECK(cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));

  // One call as MLX makes it: bias term, setup, GEMM, on N-major scales.
  auto call = [=] {
    if constexpr (Bias) {
      mlx::core::gather_qmm_sm90_bias_term<Element>
          <<<dim3((rows + mlx::core::kBiasTermRows - 1) /
                      mlx::core::kBiasTermRows,
                  (n + 255) / 256),
             256,
             mlx::core::kBiasTermRows * (k / kGroupSize) * sizeof(float)>>>(
              o.rhs,
              static_cast<const Element*>(o.x),
              static_cast<const Element*>(o.biases_n_major),
              bias_term,
              rows,
              n,
              k,
              kGroupSize);
    }
    mlx::core::gather_qmm_sm90_groups<Gemm><<<(groups + 127) / 128, 128>>>(
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
        reinterpret_cast<const char*>(bias_term),
        static_cast<char*>(o.out),
        g);
    kernel<<<Gemm::get_grid_shape(params), Gemm::get_block_shape(), smem>>>(
        params);
  };
  return {call, [=] {
            for (void* q : {(void*)bias_term, (void*)arrays_memory,
                            (void*)workspace}) {
              CHECK(cudaFree(q));
            }
          }};
}

template Kernel sm90_grouped<BENCH_TILE, BENCH_BIAS>(
    const Problem&,
    const Operands&);

#endif
