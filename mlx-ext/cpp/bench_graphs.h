// Two benchmarks that time more than one op, for op-bench (`graph` and `sdpa_grad` requests,
// driven by `mlx-ab ops`): the cost per node of building and evaluating a graph, and one
// training step of causal attention. Each returns the median of `reps` timings, the peak
// memory of one timing above what was allocated before it, and the result (flattened, joined).
#pragma once

#include <cstdint>

#include "rust/cxx.h"
#include "shim_common.h"

namespace mlx_ext {

struct BenchTiming;

// Seconds per node of building and evaluating, on the CPU, a graph of shape `shape`:
//   chain N     N scalar adds, each reading the previous one
//   fanin N     N scalar adds on one evaluated input, summed pairwise into one output
//   multiout N  a chain of N/2 divmods (one primitive, two outputs) whose outputs are added
//   streams N   a chain of N scalar adds alternating between two CPU streams
//   decode N    N decode-shaped layers at batch 1 (rms_norm, 2048x2048 matmul, SiLU, residual)
BenchTiming eval_graph_bench(rust::Str shape, std::uint32_t nodes, std::uint32_t reps);

// Seconds of one step on the CPU: loss = sum(sdpa(q, k, v)^2) with a causal mask (as the mode
// string, or with `array_mask` as the same mask in a bool array: stock MLX's chain in any
// build), float32 q, k, v of [1, heads, len, head_dim], and its gradients with respect to all
// three, evaluated together; the result is the gradients'.
BenchTiming causal_sdpa_train_step_bench(
    std::uint32_t heads,
    std::uint32_t len,
    std::uint32_t head_dim,
    std::uint32_t reps,
    bool array_mask);

} // namespace mlx_ext
