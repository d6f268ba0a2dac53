// The kernel benches' main side: random operands, MLX's affine product in
// float32 as the reference, each kernel's error against it, and the kernels of
// one problem timed in interleaved rounds in one process.

#pragma once

#include "common.cuh"

#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

// By estimate, not measured: rounding alone (bfloat16 weights after
// dequantization, bfloat16 outputs) leaves under about 1e-2 of the RMS over
// these outputs; a wrong layout or a missing term leaves about 1.
constexpr double kTolerance = 0.05;

namespace {

using Bf16 = __nv_bfloat16;

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

// (experts, N, G) -> (experts, G, N).
__global__ void n_major(const Bf16* in, Bf16* out, int experts, int n, int g) {
  size_t count = size_t(experts) * n * g;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count;
       i += size_t(gridDim.x) * blockDim.x) {
    size_t e = i / (size_t(n) * g), j = i / g % n, c = i % g;
    out[(e * g + c) * n + j] = in[i];
  }
}

// MLX's affine product in float32: out[r, j] = sum over k of x[r, k] *
// (scale * q + bias), q the 4-bit value of w[rhs[r], j, k] (MLX's packing:
// the element of even k in the low nibble).
__global__ void reference(const Operands o, float* out, int k, int n) {
  int r = blockIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) {
    return;
  }
  size_t e = o.rhs[r], groups = k / kGroupSize;
  const uint8_t* wj = o.w + (e * n + j) * k / 2;
  auto* x = static_cast<const Bf16*>(o.x) + size_t(o.lhs[r]) * k;
  auto* scales = static_cast<const Bf16*>(o.scales) + (e * n + j) * groups;
  auto* biases = static_cast<const Bf16*>(o.biases) + (e * n + j) * groups;
  float acc = 0;
  for (int i = 0; i < k; ++i) {
    int q = (wj[i / 2] >> (4 * (i % 2))) & 0xf;
    int g = i / kGroupSize;
    acc += float(x[i]) * (float(scales[g]) * q + float(biases[g]));
  }
  out[size_t(r) * n + j] = acc;
}

// The rows of each expert. Skewed: Zipf-like loads (expert e's share 1 /
// (e + 1)), every fifth expert idle, the rows the shares leave to expert 0; a
// prefill's routing is uneven like this, and the grouped kernel's problems
// then differ in size and some are empty.
std::vector<int> rows_of_experts(const Problem& p) {
  std::vector<int> rows(p.experts, p.rows_per_expert);
  if (!p.skewed) {
    return rows;
  }
  double shares = 0;
  for (int e = 0; e < p.experts; ++e) {
    shares += e % 5 == 4 ? 0 : 1.0 / (e + 1);
  }
  int left = p.rows();
  for (int e = p.experts - 1; e >= 0; --e) {
    rows[e] = e % 5 == 4 ? 0 : int(p.rows() / (e + 1) / shares);
    left -= e ? rows[e] : 0;
  }
  rows[0] = left;
  return rows;
}

Operands make_operands(const Problem& p) {
  int rows = p.rows();
  size_t weights = size_t(p.experts) * p.n * p.k / 2;
  size_t scale_count = size_t(p.experts) * p.n * (p.k / kGroupSize);
  std::vector<uint32_t> lhs(rows), rhs;
  for (int r = 0; r < rows; ++r) {
    lhs[r] = p.reversed_lhs ? rows - 1 - r : r;
  }
  std::vector<int> loads = rows_of_experts(p);
  for (int e = 0; e < p.experts; ++e) {
    rhs.insert(rhs.end(), loads[e], e);
  }
  Operands o{
      device_array<uint32_t>(rows),
      device_array<uint32_t>(rows),
      device_array<Bf16>(size_t(rows) * p.k),
      device_array<uint8_t>(weights),
      device_array<Bf16>(scale_count),
      device_array<Bf16>(scale_count),
      device_array<Bf16>(scale_count),
      device_array<Bf16>(scale_count),
      device_array<Bf16>(size_t(rows) * p.n)};
  CHECK(cudaMemcpy(o.lhs, lhs.data(), rows * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(o.rhs, rhs.data(), rows * 4, cudaMemcpyHostToDevice));
  fill<<<1024, 256>>>(static_cast<Bf16*>(o.x), size_t(rows) * p.k, 1, -1, 1);
  fill_bytes<<<1024, 256>>>(o.w, weights, 2);
  fill<<<1024, 256>>>(
      static_cast<Bf16*>(o.scales), scale_count, 3, 0.001f, 0.01f);
  fill<<<1024, 256>>>(
      static_cast<Bf16*>(o.biases), scale_count, 4, -0.05f, 0.05f);
  int groups = p.k / kGroupSize;
  n_major<<<1024, 256>>>(
      static_cast<Bf16*>(o.scales),
      static_cast<Bf16*>(o.scales_n_major),
      p.experts,
      p.n,
      groups);
  n_major<<<1024, 256>>>(
      static_cast<Bf16*>(o.biases),
      static_cast<Bf16*>(o.biases_n_major),
      p.experts,
      p.n,
      groups);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  return o;
}

void free_operands(const Operands& o) {
  for (void* q :
       {(void*)o.lhs,
        (void*)o.rhs,
        o.x,
        (void*)o.w,
        o.scales,
        o.biases,
        o.scales_n_major,
        o.biases_n_major,
        o.out}) {
    CHECK(cudaFree(q));
  }
}

// One call's output and its largest error over the reference's RMS (infinite
// where NaN).
struct Checked {
  std::vector<Bf16> out;
  double error_over_rms;
};

Checked check(const Problem& p, const Operands& o, const Kernel& kernel) {
  size_t count = size_t(p.rows()) * p.n;
  CHECK(cudaMemset(o.out, 0xff, count * sizeof(Bf16))); // NaN: unwritten shows
  kernel.call();
  CHECK(cudaGetLastError());
  auto* expected = device_array<float>(count);
  reference<<<dim3((p.n + 127) / 128, p.rows()), 128>>>(o, expected, p.k, p.n);
  CHECK(cudaDeviceSynchronize());
  std::vector<Bf16> got(count);
  std::vector<float> want(count);
  CHECK(cudaMemcpy(got.data(), o.out, count * 2, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(want.data(), expected, count * 4, cudaMemcpyDeviceToHost));
  CHECK(cudaFree(expected));
  double squares = 0, max_error = 0;
  for (size_t i = 0; i < count; ++i) {
    squares += double(want[i]) * want[i];
    double error = std::fabs(double(__bfloat162float(got[i])) - want[i]);
    max_error = std::isnan(error) ? INFINITY : std::max(max_error, error);
  }
  return {std::move(got), max_error / std::sqrt(squares / count)};
}

// How many of two outputs' values differ in any bit.
size_t values_differing(
    const std::vector<Bf16>& a,
    const std::vector<Bf16>& b) {
  size_t differing = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    differing += std::memcmp(&a[i], &b[i], sizeof(Bf16)) != 0;
  }
  return differing;
}

// The mean time of one call over `calls` calls, by CUDA events.
double time_ms(const Kernel& kernel, int calls) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  for (int i = 0; i < calls; ++i) {
    kernel.call();
  }
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaGetLastError());
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  return ms / calls;
}

} // namespace

// A kernel's name and how it is made for a problem.
struct Entry {
  const char* name;
  Kernel (*make)(const Problem&, const Operands&);
};

// Each kernel checked against the reference, then all timed in 7 rounds of 20
// calls each (3 untimed first), their order reversed every round, in one
// process. Prints one line per kernel: its fastest round (ms), the first
// kernel's (the baseline's) over it (speedup), the rates at it, its error,
// how many output values differ in any bit from the baseline's, and every
// round's time.
inline void compare(const Problem& p, std::vector<Entry> entries) {
  Operands o = make_operands(p);
  std::vector<Kernel> kernels;
  std::vector<Checked> checks;
  for (auto& e : entries) {
    kernels.push_back(e.make(p, o));
    checks.push_back(check(p, o, kernels.back()));
    time_ms(kernels.back(), 3);
  }
  const int rounds = 7;
  std::vector<std::vector<double>> ms(kernels.size());
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < kernels.size(); ++i) {
      size_t at = round % 2 ? kernels.size() - 1 - i : i;
      ms[at].push_back(time_ms(kernels[at], 20));
    }
  }
  double flops = 2.0 * p.rows() * p.k * double(p.n);
  std::vector<int> loads = rows_of_experts(p);
  double used = loads.size() - std::count(loads.begin(), loads.end(), 0);
  double bytes = used * p.n * p.k / 2 + // 4-bit weights of the experts used
      2.0 * used * p.n * (p.k / kGroupSize) * 2 + // their scales and biases
      double(p.rows()) * (p.k + p.n) * 2; // x and out, bfloat16
  auto best_of = [&](size_t i) {
    return *std::min_element(ms[i].begin(), ms[i].end());
  };
  for (size_t i = 0; i < kernels.size(); ++i) {
    double best = best_of(i);
    std::printf(
        "%s rows_per_expert=%d%s%s k=%d n=%d ms=%.4f speedup=%.2f tflops=%.1f "
        "tbps=%.2f max_error_over_rms=%.3g %s values_differing_from_first=%zu "
        "rounds_ms=",
        entries[i].name,
        p.rows_per_expert,
        p.skewed ? " (mean, skewed)" : "",
        p.reversed_lhs ? " (lhs reversed)" : "",
        p.k,
        p.n,
        best,
        best_of(0) / best,
        flops / best / 1e9,
        bytes / best / 1e9,
        checks[i].error_over_rms,
        checks[i].error_over_rms < kTolerance ? "ok" : "WRONG",
        values_differing(checks[i].out, checks[0].out));
    for (size_t round = 0; round < ms[i].size(); ++round) {
      std::printf("%s%.4f", round ? "," : "", ms[i][round]);
    }
    std::printf("\n");
    std::fflush(stdout);
    kernels[i].release();
  }
  free_operands(o);
}
