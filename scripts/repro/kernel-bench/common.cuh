// What the kernel benches' compilations share (./run builds each kernel in a
// compilation of its own, so that nvcc compiles them in parallel): the problem,
// its operands on the device and a kernel under test.

#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>

#define CHECK(call)                                                   \
  do {                                                                \
    cudaError_t e = (call);                                           \
    if (e != cudaSuccess) {                                           \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e)); \
      std::exit(1);                                                   \
    }                                                                 \
  } while (0)

// bfloat16 x 4-bit affine weights, groups of 64: the MoE checkpoints' mode.
constexpr int kGroupSize = 64;

// The expert projections of MoE checkpoints, as their configs give them.
// Every N a multiple of 128 and every K of 128, as the series' rhs kernel and
// the grouped Hopper experiment take.
struct MoeShape {
  const char* name;
  int experts, hidden, intermediate;
  // The up projection maps hidden to intermediate, the down one back.
  int k(bool up) const {
    return up ? hidden : intermediate;
  }
  int n(bool up) const {
    return up ? intermediate : hidden;
  }
};
constexpr MoeShape kMoeShapes[] = {
    {"Qwen3-30B-A3B", 128, 2048, 768},
    {"Qwen3-235B-A22B", 128, 4096, 1536},
    {"DeepSeek-V2-Lite", 64, 2048, 1408},
    {"Mixtral-8x7B", 8, 4096, 14336},
};

// One problem: experts x rows_per_expert rows of K, N out-features each, the
// rows spread evenly over the experts or, skewed, as a router with hot and idle
// experts spreads them (harness.cuh's rows_of_experts).
struct Problem {
  int experts, rows_per_expert, k, n;
  bool skewed = false;
  // lhs the rows in reverse (x's row of output row r is rows - 1 - r), for
  // kernels that read x through lhs; MLX's sorted paths give them the identity.
  bool reversed_lhs = false;
  int rows() const {
    return experts * rows_per_expert;
  }
};

// A problem's operands on the device, as MLX holds them: rows sorted by expert
// (rhs: the expert of each row; lhs: the identity, each row its own x, or
// reversed),
// bfloat16 x (rows, K), 4-bit weights (experts, N, K) packed as MLX packs them,
// bfloat16 scales and biases (experts, N, K / 64) and, N-major, (experts,
// K / 64, N), as MLX's Hopper kernels copy them; the bfloat16 output.
struct Operands {
  uint32_t* lhs;
  uint32_t* rhs;
  void* x;
  uint8_t* w;
  void* scales;
  void* biases;
  void* scales_n_major;
  void* biases_n_major;
  void* out;
};

// A kernel under test: one call into o.out, and what its setup allocated
// freed by release.
struct Kernel {
  std::function<void()> call;
  std::function<void()> release = [] {};
};

template <typename T>
T* device_array(size_t count) {
  T* p;
  CHECK(cudaMalloc(&p, count * sizeof(T)));
  return p;
}

// The series' kernels at these calls (series.cu): the per-row qmm_sm80_kernel
// (one row per matrix: stock's and the series' affine path under 4 rows per
// expert)
// and 0004's rhs kernel at its tile (at least 4 rows per expert); the _n64
// forms at a 64-feature tile, decode candidates, not the series'. ./run
// compiles series.cu again for a variant of the series with this namespace
// (and mlx) renamed.
namespace series {
Kernel per_row(const Problem& p, const Operands& o);
Kernel per_row_n64(const Problem& p, const Operands& o); // a candidate
Kernel rhs(const Problem& p, const Operands& o);
Kernel rhs_n64(const Problem& p, const Operands& o); // a candidate
} // namespace series
