// The sorted decode experiment's kernel (scripts/repro/experiments/
// gather-qmv-sorted.patch) alone, without an MLX build: launched as its
// gather_qmv_sorted launches it, on random bfloat16 x 4-bit (groups of 64)
// weights of 128 experts at 1 and 2 rows each, checked against a float32
// reference and timed. TB/s counts the bytes a call must move (every expert's
// weights, scales and biases, x and the output), issue 26's measure. Built by
// ./run, once per form (BENCH_PREFETCH: true or false) and once for main
// (BENCH_MAIN).

#include "common.cuh"

template <bool Prefetch>
Result bench(const Problem& shape);

#ifdef BENCH_MAIN

int main() {
  // Qwen3-30B-A3B's expert projections: up (K 2048, N 768) and down.
  const int sizes[][2] = {{2048, 768}, {768, 2048}};
  std::printf("form rows_per_expert k n ms tbps max_error_over_rms verdict\n");
  for (auto [k, n] : sizes) {
    auto report = [&](const char* form, int rows_per_expert, Result r) {
      double rows = 128.0 * rows_per_expert;
      double bytes = 128.0 * n * k / 2 + // 4-bit weights
          2 * 128.0 * n * (k / 64) * 2 + // bfloat16 scales and biases
          rows * (k + n) * 2; // x and out
      std::printf(
          "%s %d %d %d %.4f %.2f %.3g %s\n",
          form,
          rows_per_expert,
          k,
          n,
          r.ms,
          bytes / r.ms / 1e9,
          r.max_error_over_rms,
          verdict(r));
    };
    for (int rows : {1, 2}) {
      report("plain", rows, bench<false>({128, rows, k, n}));
      report("prefetch", rows, bench<true>({128, rows, k, n}));
    }
  }
}

#else // one form: BENCH_PREFETCH

#include "mlx/backend/cuda/quantized/qmm/qmv_sorted.cuh"

using Element = cutlass::bfloat16_t;

template <bool Prefetch>
Result bench(const Problem& shape) {
  Operands o(shape);
  // Each row its own x (lhs_indices the identity), sorted by expert.
  std::vector<uint32_t> host_lhs(o.rows);
  for (int r = 0; r < o.rows; ++r) {
    host_lhs[r] = r;
  }
  auto* lhs = device_array<uint32_t>(o.rows);
  CHECK(cudaMemcpy(
      lhs,
      host_lhs.data(),
      o.rows * sizeof(uint32_t),
      cudaMemcpyHostToDevice));
  auto call = [&]() {
    mlx::core::cu::gather_qmv_sorted<kGroupSize, true, Prefetch>(
        reinterpret_cast<const Element*>(o.x),
        reinterpret_cast<const cutlass::uint4b_t*>(o.w),
        reinterpret_cast<const Element*>(o.scales),
        reinterpret_cast<const Element*>(o.biases),
        reinterpret_cast<Element*>(o.out),
        lhs,
        o.indices,
        shape.n,
        shape.k,
        o.rows,
        shape.experts,
        [](void* kernel, dim3 blocks, dim3 threads, void** args) {
          CHECK(cudaLaunchKernel(kernel, blocks, threads, args, 0, nullptr));
        });
  };
  Result r = check_and_time(shape, o, false, call);
  CHECK(cudaFree(lhs));
  return r;
}

template Result bench<BENCH_PREFETCH>(const Problem&);

#endif
