// fast::causal_softmax, which only MLX built with the fused-causal-softmax patch has.
#pragma once

#include <memory>

#include "shim_common.h"

namespace mlx_ext {

// Softmax over the last axis of `scores` with the causal mask of its last two axes.
std::unique_ptr<mlx::core::array> causal_softmax(const mlx::core::array& scores, bool precise);

// Whether `a` is still an unevaluated output of the fused primitive (CausalSoftmax), so a
// test can tell the fused kernel from the fallback chain before evaluating.
bool is_fused_causal_softmax(const mlx::core::array& a);

} // namespace mlx_ext
