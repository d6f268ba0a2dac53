// What the kernel benches share: random bfloat16 x 4-bit affine weights
// (groups of 64, MLX's packing) of several experts, MLX's affine product in
// float32 as the reference, the error against it and the time per call.

#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <vector>

#define CHECK(call)                                                   \
  do {                                                                \
    cudaError_t e = (call);                                           \
    if (e != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e)); \
      std::exit(1);                                                   \
    }                                                                 \
  } while (0)

// One problem: experts x rows_per_expert rows of K, N out-features each.
struct Problem {
  int experts, rows_per_expert, k, n;
};

// What one kernel did on one shape: its time per call and its largest error
// over the reference's RMS.
struct Result {
  double ms;
  double max_error_over_rms;
};

// By estimate, not measured: rounding alone (bfloat16 weights after
// dequantization, bfloat16 outputs) leaves under about 1e-2 of the RMS over
// these outputs; a wrong layout or a missing term leaves about 1.
constexpr double kTolerance = 0.05;

inline const char* verdict(const Result& r) {
  return r.max_error_over_rms < kTolerance ? "ok" : "WRONG";
}

// Each kernel's compilation has its own copy.
namespace {

using Bf16 = __nv_bfloat16;
constexpr int kGroupSize = 64;

// Deterministic noise in [-1, 1) from an index and a seed.
__device__ float noise(size_t i, uint32_t seed) {
  uint64_t h = (i + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t(seed) << 32);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return float(h & 0xffffff) / float(1 << 23) - 1.0f;
}

__global__ void fill(Bf16* p, size_t count, uint32_t seed, float lo, float hi) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    p[i] = Bf16(lo + (noise(i, seed) + 1) / 2 * (hi - lo));
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
// element of even k in the low nibble). Scales and biases are MLX's
// (expert, N, K / 64) or, with n_major, (expert, K / 64, N).
__global__ void reference(
    const uint32_t* indices,
    const Bf16* x,
    const uint8_t* w,
    const Bf16* scales,
    const Bf16* biases,
    float* out,
    int k,
    int n,
    bool n_major) {
  int r = blockIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) {
    return;
  }
  size_t e = indices[r], groups = k / kGroupSize;
  const uint8_t* wj = w + (e * n + j) * k / 2;
  float acc = 0;
  for (int i = 0; i < k; ++i) {
    int q = (wj[i / 2] >> (4 * (i % 2))) & 0xf;
    size_t g = i / kGroupSize;
    size_t sb = n_major ? (e * groups + g) * n + j : (e * n + j) * groups + g;
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

// A problem's inputs on the device, random: rows sorted by expert (the same
// count each), x, 4-bit weights, scales and biases, and the bfloat16 output.
struct Operands {
  int rows;
  size_t scale_count;
  uint32_t* indices;
  Bf16* x;
  uint8_t* w;
  Bf16* scales;
  Bf16* biases;
  Bf16* out;

  explicit Operands(const Problem& p)
      : rows(p.experts * p.rows_per_expert),
        scale_count(size_t(p.experts) * (p.k / kGroupSize) * p.n) {
    std::vector<uint32_t> host_indices(rows);
    for (int r = 0; r < rows; ++r) {
      host_indices[r] = r / p.rows_per_expert;
    }
    indices = device_array<uint32_t>(rows);
    CHECK(cudaMemcpy(
        indices,
        host_indices.data(),
        rows * sizeof(uint32_t),
        cudaMemcpyHostToDevice));
    x = device_array<Bf16>(size_t(rows) * p.k);
    w = device_array<uint8_t>(size_t(p.experts) * p.n * p.k / 2);
    scales = device_array<Bf16>(scale_count);
    biases = device_array<Bf16>(scale_count);
    out = device_array<Bf16>(size_t(rows) * p.n);
    fill<<<1024, 256>>>(x, size_t(rows) * p.k, 1, -1.0f, 1.0f);
    fill_bytes<<<1024, 256>>>(w, size_t(p.experts) * p.n * p.k / 2, 2);
    fill<<<1024, 256>>>(scales, scale_count, 3, 0.001f, 0.01f);
    fill<<<1024, 256>>>(biases, scale_count, 4, -0.05f, 0.05f);
    CHECK(cudaGetLastError());
  }
  ~Operands() {
    for (void* q : {(void*)indices, (void*)x, (void*)w, (void*)scales,
                    (void*)biases, (void*)out}) {
      CHECK(cudaFree(q));
    }
  }
  Operands(const Operands&) = delete;
  Operands& operator=(const Operands&) = delete;
};

// One call checked against the reference (scales laid out as the kernel read
// them: n_major or not), then timed: the mean of 20 calls after 3 untimed.
template <typename F>
Result check_and_time(const Problem& p, const Operands& o, bool n_major, F&& call) {
  call();
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  auto* expected = device_array<float>(size_t(o.rows) * p.n);
  reference<<<dim3((p.n + 127) / 128, o.rows), 128>>>(
      o.indices, o.x, o.w, o.scales, o.biases, expected, p.k, p.n, n_major);
  CHECK(cudaDeviceSynchronize());
  std::vector<Bf16> got(size_t(o.rows) * p.n);
  std::vector<float> want(got.size());
  CHECK(cudaMemcpy(
      got.data(), o.out, got.size() * sizeof(Bf16), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(
      want.data(),
      expected,
      want.size() * sizeof(float),
      cudaMemcpyDeviceToHost));
  CHECK(cudaFree(expected));
  double squares = 0, max_error = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    squares += double(want[i]) * want[i];
    double error = std::fabs(double(__bfloat162float(got[i])) - want[i]);
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
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return {ms / reps, max_error / rms};
}

} // namespace
