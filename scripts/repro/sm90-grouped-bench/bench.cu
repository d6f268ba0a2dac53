// The grouped Hopper experiment's GEMM (scripts/repro/experiments/
// gather-qmm-sm90-grouped.patch) alone, without an MLX build: its setup,
// bias-term and GEMM kernels launched as its gather_qmm_sm90_launch launches
// them, on random bfloat16 x 4-bit (groups of 64) weights of 128 experts with
// the same rows each, checked against a float32 reference and timed. Built by
// ./run, once per kernel (BENCH_TILE, BENCH_BIAS: true or false) and once for main
// (BENCH_MAIN), so that nvcc compiles the kernels in parallel.

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                               \
  do {                                                            \
    cudaError_t e = (call);                                       \
    if (e != cudaSuccess) {                                       \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e)); \
      std::exit(1);                                               \
    }                                                             \
  } while (0)

// One problem: experts x rows_per_expert rows of K, N out-features each.
struct Problem {
  int experts, rows_per_expert, k, n;
};

// What one kernel did on one shape: its time per call (setup, bias term and
// GEMM) and its largest error over the reference's RMS.
struct Result {
  double ms;
  double max_error_over_rms;
};

template <int TileN, bool Bias>
Result bench(const Problem& shape);

#ifdef BENCH_MAIN

int main() {
  // Qwen3-30B-A3B's expert projections: up (K 2048, N 768) and down.
  const int sizes[][2] = {{2048, 768}, {768, 2048}};
  // By estimate, not measured: rounding alone (bfloat16 weights after
  // dequantization, bfloat16 outputs) leaves under about 1e-2 of the RMS over
  // these outputs; a wrong layout or a missing term leaves about 1.
  const double tolerance = 0.05;
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
          r.max_error_over_rms < tolerance ? "ok" : "WRONG");
    };
    report(128, "affine", 128, bench<128, false>({128, 128, k, n}));
    report(128, "scales-bias", 128, bench<128, true>({128, 128, k, n}));
    report(256, "affine", 256, bench<256, false>({128, 256, k, n}));
    report(256, "scales-bias", 256, bench<256, true>({128, 256, k, n}));
  }
}

#else // one kernel: BENCH_TILE, BENCH_BIAS

#include "mlx/backend/cuda/quantized/qmm/gather_qmm_sm90.cuh"

#include <cmath>
#include <vector>

using mlx::core::GroupArrays;
using Element = cutlass::bfloat16_t;

// This file's own in each kernel's compilation.
namespace {

// Deterministic noise in [-1, 1) from an index and a seed.
__device__ float noise(size_t i, uint32_t seed) {
  uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t(seed) << 32);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return float(h & 0xffffff) / float(1 << 23) - 1.0f;
}

__global__ void fill(Element* p, size_t count, uint32_t seed, float lo, float hi) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    p[i] = Element(lo + (noise(i, seed) + 1) / 2 * (hi - lo));
  }
}

__global__ void fill_bytes(uint8_t* p, size_t count, uint32_t seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    p[i] = uint8_t(int((noise(i, seed) + 1) * 128) & 0xff);
  }
}

// MLX's affine product in float32: out[r, j] = sum over k of x[r, k] *
// (scale * q + bias), q the 4-bit value of w[e_r, j, k] (MLX's packing: the
// element of even k in the low nibble), scales and biases N-major.
__global__ void reference(
    const uint32_t* indices,
    const Element* x,
    const uint8_t* w,
    const Element* scales,
    const Element* biases,
    float* out,
    int k,
    int n) {
  int r = blockIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) {
    return;
  }
  size_t e = indices[r];
  const uint8_t* wj = w + (e * n + j) * k / 2;
  float acc = 0;
  for (int i = 0; i < k; ++i) {
    int q = (wj[i / 2] >> (4 * (i % 2))) & 0xf;
    size_t sb = (e * (k / 64) + i / 64) * n + j;
    acc += float(x[size_t(r) * k + i]) *
        (float(scales[sb]) * q + float(biases[sb]));
  }
  out[size_t(r) * n + j] = acc;
}

template <typename T>
T* device_array(size_t count) {
  T* p;
  CHECK(cudaMalloc(&p, count * sizeof(T)));
  return p;
}

} // namespace

template <int TileN, bool Bias>
Result bench(const Problem& shape) {
  using Gemm = mlx::core::cu::gather_qmm_sm90_kernel_t<
      Element,
      cutlass::uint4b_t,
      cute::Shape<cute::_128, cute::Int<TileN>, cute::_64>,
      Bias>;
  int groups = shape.experts, k = shape.k, n = shape.n;
  int rows = groups * shape.rows_per_expert, bits = 4, group_size = 64;
  size_t scale_count = size_t(groups) * (k / group_size) * n;

  std::vector<uint32_t> host_indices(rows);
  for (int r = 0; r < rows; ++r) {
    host_indices[r] = r / shape.rows_per_expert;
  }
  auto* indices = device_array<uint32_t>(rows);
  CHECK(cudaMemcpy(
      indices,
      host_indices.data(),
      rows * sizeof(uint32_t),
      cudaMemcpyHostToDevice));
  auto* x = device_array<Element>(size_t(rows) * k);
  auto* w = device_array<uint8_t>(size_t(groups) * n * k / 2);
  auto* scales = device_array<Element>(scale_count);
  auto* biases = device_array<Element>(scale_count);
  auto* out = device_array<Element>(size_t(rows) * n);
  auto* expected = device_array<float>(size_t(rows) * n);
  auto* bias_term = Bias ? device_array<float>(size_t(rows) * n) : nullptr;
  fill<<<1024, 256>>>(x, size_t(rows) * k, 1, -1.0f, 1.0f);
  fill_bytes<<<1024, 256>>>(w, size_t(groups) * n * k / 2, 2);
  fill<<<1024, 256>>>(scales, scale_count, 3, 0.001f, 0.01f);
  fill<<<1024, 256>>>(biases, scale_count, 4, -0.05f, 0.05f);

  using Arrays = GroupArrays<Gemm>;
  char* arrays_memory =
      device_array<char>(Arrays::carve(nullptr, nullptr, groups));
  Arrays g;
  Arrays::carve(&g, arrays_memory, groups);

  auto args = mlx::core::grouped_arguments<Gemm, Bias>(g, groups, group_size);
  size_t workspace_bytes = std::max<size_t>(Gemm::get_workspace_size(args), 1);
  auto* workspace = device_array<char>(workspace_bytes);
  auto params = Gemm::to_underlying_arguments(args, workspace);
  size_t smem_bytes = Gemm::SharedStorageSize;
  auto kernel = cutlass::device_kernel<Gemm>;
  CHECK(cudaFuncSetAttribute(
      kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes));

  // One call as MLX makes it: setup, bias term, GEMM.
  auto call = [&]() {
    if constexpr (Bias) {
      int k_groups = k / group_size;
      mlx::core::gather_qmm_sm90_bias_term<Element>
          <<<dim3((rows + mlx::core::kBiasTermRows - 1) /
                      mlx::core::kBiasTermRows,
                  (n + 255) / 256),
             256,
             mlx::core::kBiasTermRows * k_groups * sizeof(float)>>>(
              indices, x, biases, bias_term, rows, n, k, group_size);
    }
    mlx::core::gather_qmm_sm90_groups<Gemm><<<(groups + 127) / 128, 128>>>(
        indices,
        rows,
        n,
        k,
        bits,
        group_size,
        groups,
        reinterpret_cast<const char*>(x),
        reinterpret_cast<const char*>(w),
        reinterpret_cast<const char*>(scales),
        reinterpret_cast<const char*>(biases),
        reinterpret_cast<const char*>(bias_term),
        reinterpret_cast<char*>(out),
        g);
    kernel<<<Gemm::get_grid_shape(params), Gemm::get_block_shape(), smem_bytes>>>(
        params);
  };

  call();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  reference<<<dim3((n + 127) / 128, rows), 128>>>(
      indices, x, w, scales, biases, expected, k, n);
  CHECK(cudaDeviceSynchronize());

  std::vector<Element> got(size_t(rows) * n);
  std::vector<float> want(got.size());
  CHECK(cudaMemcpy(
      got.data(), out, got.size() * sizeof(Element), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(
      want.data(),
      expected,
      want.size() * sizeof(float),
      cudaMemcpyDeviceToHost));
  double squares = 0, max_error = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    squares += double(want[i]) * want[i];
    double error = std::fabs(double(float(got[i])) - want[i]);
    max_error = std::isnan(error) ? INFINITY : std::max(max_error, error);
  }
  double rms = std::sqrt(squares / got.size());

  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const int reps = 20;
  for (int i = 0; i < 3; ++i) {
    call();
  }
  CHECK(cudaEventRecord(start));
  for (int i = 0; i < reps; ++i) {
    call();
  }
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaGetLastError());
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));

  for (void* p : std::initializer_list<void*>{
           indices, x, w, scales, biases, out, expected, bias_term,
           arrays_memory, workspace}) {
    CHECK(cudaFree(p));
  }
  return {ms / reps, max_error / rms};
}

template Result bench<BENCH_TILE, BENCH_BIAS>(const Problem&);

#endif
