// mlx::core::fast (fast.h): fused normalization, rotary embedding and attention.
#pragma once

#include "shim_common.h"

namespace mlx_sys {

// Optional arrays are passed as nullable pointers: null means std::nullopt.
std::unique_ptr<array> rms_norm(const array& x, const array* weight, float eps);
std::unique_ptr<array> layer_norm(const array& x, const array* weight, const array* bias, float eps);
// has_base == false passes std::nullopt for base (then freqs must be given).
std::unique_ptr<array> rope(
    const array& x, std::int32_t dims, bool traditional, bool has_base, float base, float scale,
    std::int32_t offset, const array* freqs);
std::unique_ptr<array> rope_offset_array(
    const array& x, std::int32_t dims, bool traditional, bool has_base, float base, float scale,
    const array& offset, const array* freqs);
// mask_mode: "" (none), "causal" or "array" (then mask is required), as in MLX.
std::unique_ptr<array> scaled_dot_product_attention(
    const array& queries, const array& keys, const array& values, float scale,
    rust::Str mask_mode, const array* mask, const array* sinks);

} // namespace mlx_sys
