// The grouped Hopper experiment's GEMM (scripts/repro/experiments/
// gather-qmm-sm90-grouped.patch) alone, without an MLX build: its setup,
// bias-term and GEMM kernels launched as its gather_qmm_sm90_launch launches
// them, on random bfloat16 x 4-bit (groups of 64) weights of 128 experts with
// the same rows each, checked against a float32 reference and timed. Built by
// ./run, once per kernel (BENCH_TILE, BENCH_BIAS: true or false) and once for main
// (BENCH_MAIN), so that nvcc compiles the kernels in parallel.

#include "common.cuh"

template <int TileN, bool Bias>
Result bench(const Problem& shape);

#ifdef BENCH_MAIN

int main() {
  // Qwen3-30B-A3B's expert projections: up (K 2048, N 768) and down.
  const int sizes[][2] = {{2048, 768}, {768, 2048}};
  std::printf("tile form rows_per_expert k n ms tflops max_error_over_rms verdict\n");
  for (auto [k, n] : sizes) {
    auto report = [&](int tile, const char* form, int rows, Result r) {
      double flops = 2.0 * 128 * rows * double(k) * n;
      std::printf(
          "%d %s %d %d %d %.4f %.1f %.3g %s\n",
          tile,
          form,
          rows,
          k,
          n,
          r.ms,
          flops / r.ms / 1e9,
          r.max_error_over_rms,
          verdict(r));
    };
    report(128, "affine", 128, bench<128, false>({128, 128, k, n}));
    report(128, "scales-bias", 128, bench<128, true>({128, 128, k, n}));
    report(256, "affine", 256, bench<256, false>({128, 256, k, n}));
    report(256, "scales-bias", 256, bench<256, true>({128, 256, k, n}));
  }
}

#else // one kernel: BENCH_TILE, BENCH_BIAS

#include "mlx/backend/cuda/quantized/qmm/gather_qmm_sm90.cuh"

using mlx::core::GroupArrays;
using Element = cutlass::bfloat16_t;

template <int TileN, bool Bias>
Result bench(const Problem& shape) {
  using Gemm = mlx::core::cu::gather_qmm_sm90_kernel_t<
      Element,
      cutlass::uint4b_t,
      cute::Shape<cute::_128, cute::Int<TileN>, cute::_64>,
      Bias>;
  int groups = shape.experts, k = shape.k, n = shape.n, bits = 4;
  Operands o(shape);
  int rows = o.rows;
  auto* bias_term = Bias ? device_array<float>(size_t(rows) * n) : nullptr;

  using Arrays = GroupArrays<Gemm>;
  char* arrays_memory =
      device_array<char>(Arrays::carve(nullptr, nullptr, groups));
  Arrays g;
  Arrays::carve(&g, arrays_memory, groups);

  auto args = mlx::core::grouped_arguments<Gemm, Bias>(g, groups, kGroupSize);
  size_t workspace_bytes = std::max<size_t>(Gemm::get_workspace_size(args), 1);
  auto* workspace = device_array<char>(workspace_bytes);
  auto params = Gemm::to_underlying_arguments(args, workspace);
  size_t smem_bytes = Gemm::SharedStorageSize;
  auto kernel = cutlass::device_kernel<Gemm>;
  CHECK(cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));

  // One call as MLX makes it: setup, bias term, GEMM. The experiment reads
  // scales and biases N-major, as MLX's dense qmm_sm90 copies them.
  auto call = [&]() {
    if constexpr (Bias) {
      int k_groups = k / kGroupSize;
      mlx::core::gather_qmm_sm90_bias_term<Element>
          <<<dim3((rows + mlx::core::kBiasTermRows - 1) /
                      mlx::core::kBiasTermRows,
                  (n + 255) / 256),
             256,
             mlx::core::kBiasTermRows * k_groups * sizeof(float)>>>(
              o.indices,
              reinterpret_cast<const Element*>(o.x),
              reinterpret_cast<const Element*>(o.biases),
              bias_term,
              rows,
              n,
              k,
              kGroupSize);
    }
    mlx::core::gather_qmm_sm90_groups<Gemm><<<(groups + 127) / 128, 128>>>(
        o.indices,
        rows,
        n,
        k,
        bits,
        kGroupSize,
        groups,
        reinterpret_cast<const char*>(o.x),
        reinterpret_cast<const char*>(o.w),
        reinterpret_cast<const char*>(o.scales),
        reinterpret_cast<const char*>(o.biases),
        reinterpret_cast<const char*>(bias_term),
        reinterpret_cast<char*>(o.out),
        g);
    kernel<<<Gemm::get_grid_shape(params), Gemm::get_block_shape(), smem_bytes>>>(
        params);
  };
  Result r = check_and_time(shape, o, true, call);
  for (void* p : {(void*)bias_term, (void*)arrays_memory, (void*)workspace}) {
    CHECK(cudaFree(p));
  }
  return r;
}

template Result bench<BENCH_TILE, BENCH_BIAS>(const Problem&);

#endif
