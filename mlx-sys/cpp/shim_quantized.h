// Quantization ops of ops.h: quantize, dequantize, quantized_matmul, gather_qmm, gather_mm.
#pragma once

#include "shim_common.h"

namespace mlx_sys {

// std::optional<int> across the bridge; mirrored by the #[repr(C)] Rust struct of the same
// name in src/ffi/quantized.rs (a cxx "trivial" extern type).
struct OptionalInt {
  bool present;
  std::int32_t value;
};

// Optional arrays are nullable pointers (null = std::nullopt); `mode` is MLX's mode name
// ("affine", "mxfp4", "mxfp8", "nvfp4").
std::unique_ptr<std::vector<array>> quantize(
    const array& w, OptionalInt group_size, OptionalInt bits, rust::Str mode, const array* global_scale);
// dtype < 0 lets MLX pick the output dtype.
std::unique_ptr<array> dequantize(
    const array& w, const array& scales, const array* biases, OptionalInt group_size,
    OptionalInt bits, rust::Str mode, const array* global_scale, std::int32_t dtype);
std::unique_ptr<array> quantized_matmul(
    const array& x, const array& w, const array& scales, const array* biases, bool transpose,
    OptionalInt group_size, OptionalInt bits, rust::Str mode);
std::unique_ptr<array> gather_qmm(
    const array& x, const array& w, const array& scales, const array* biases,
    const array* lhs_indices, const array* rhs_indices, bool transpose, OptionalInt group_size,
    OptionalInt bits, rust::Str mode, const array* global_scale, bool sorted_indices);
std::unique_ptr<array> gather_mm(
    const array& a, const array& b, const array* lhs_indices, const array* rhs_indices,
    bool sorted_indices);

} // namespace mlx_sys
