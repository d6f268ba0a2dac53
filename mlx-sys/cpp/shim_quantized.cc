#include "shim_quantized.h"

#include <stdexcept>
#include <string>

namespace mlx_sys {

namespace mc = mlx::core;

namespace {
std::optional<int> opt_int(OptionalInt v) {
  return v.present ? std::optional<int>(v.value) : std::nullopt;
}

// A product without rows is the empty array of the shape and dtype MLX inferred, made without
// MLX's kernels: in v0.32.4 quantized_matmul then dies of SIGFPE (CPU and CUDA) and gather_qmm
// of SIGSEGV or a CUDA launch error (CUDA); reports/upstream/empty-quantized-products.md.
mc::array unless_empty(mc::array out) {
  return out.size() == 0 ? mc::zeros(out.shape(), out.dtype()) : out;
}
} // namespace

std::unique_ptr<std::vector<array>> quantize(
    const array& w, OptionalInt group_size, OptionalInt bits, rust::Str mode, const array* global_scale) {
  MLX_SYS_LOCK;
  return std::make_unique<std::vector<array>>(
      mc::quantize(w, opt_int(group_size), opt_int(bits), std::string(mode), opt(global_scale)));
}

std::unique_ptr<array> dequantize(
    const array& w, const array& scales, const array* biases, OptionalInt group_size,
    OptionalInt bits, rust::Str mode, const array* global_scale, std::int32_t dtype) {
  MLX_SYS_LOCK;
  std::optional<mc::Dtype> out_type;
  if (dtype >= 0) {
    if (dtype > 255) {
      throw std::invalid_argument("[mlx-sys] unknown dtype code " + std::to_string(dtype));
    }
    out_type = dtype_from_code(static_cast<std::uint8_t>(dtype));
  }
  return wrap(mc::dequantize(
      w, scales, opt(biases), opt_int(group_size), opt_int(bits), std::string(mode),
      opt(global_scale), out_type));
}

std::unique_ptr<array> quantized_matmul(
    const array& x, const array& w, const array& scales, const array* biases, bool transpose,
    OptionalInt group_size, OptionalInt bits, rust::Str mode) {
  MLX_SYS_LOCK;
  return wrap(unless_empty(mc::quantized_matmul(
      x, w, scales, opt(biases), transpose, opt_int(group_size), opt_int(bits), std::string(mode))));
}

std::unique_ptr<array> gather_qmm(
    const array& x, const array& w, const array& scales, const array* biases,
    const array* lhs_indices, const array* rhs_indices, bool transpose, OptionalInt group_size,
    OptionalInt bits, rust::Str mode, const array* global_scale, bool sorted_indices) {
  MLX_SYS_LOCK;
  return wrap(unless_empty(mc::gather_qmm(
      x, w, scales, opt(biases), opt(lhs_indices), opt(rhs_indices), transpose,
      opt_int(group_size), opt_int(bits), std::string(mode), opt(global_scale), sorted_indices)));
}

std::unique_ptr<array> gather_mm(
    const array& a, const array& b, const array* lhs_indices, const array* rhs_indices,
    bool sorted_indices) {
  MLX_SYS_LOCK;
  return wrap(mc::gather_mm(a, b, opt(lhs_indices), opt(rhs_indices), sorted_indices));
}

} // namespace mlx_sys
