#include "shim_ops.h"

#include <stdexcept>

namespace mlx_sys {

namespace mc = mlx::core;

// Selectors: an op's position among its family's lines in ops.def (the safe crate numbers
// them the same way from the same file).
#define MLX_SYS_ENUMERATOR(f, ...) f,
enum class UnaryOp : std::uint8_t {
#define MLX_SYS_UNARY MLX_SYS_ENUMERATOR
#include "ops.def"
};
enum class BinaryOp : std::uint8_t {
#define MLX_SYS_BINARY MLX_SYS_ENUMERATOR
#include "ops.def"
};
enum class ReduceOp : std::uint8_t {
#define MLX_SYS_REDUCE MLX_SYS_ENUMERATOR
#include "ops.def"
};
enum class ArgReduceOp : std::uint8_t {
#define MLX_SYS_ARG_REDUCE MLX_SYS_ENUMERATOR
#include "ops.def"
};
enum class SortOp : std::uint8_t {
#define MLX_SYS_SORT MLX_SYS_ENUMERATOR
#define MLX_SYS_SORT_K(f, k, doc) f,
#include "ops.def"
};
#undef MLX_SYS_ENUMERATOR

std::unique_ptr<array> unary(std::uint8_t op, const array& a) {
  MLX_SYS_LOCK;
  switch (static_cast<UnaryOp>(op)) {
#define MLX_SYS_UNARY(f, doc) \
  case UnaryOp::f: return wrap(mc::f(a));
#include "ops.def"
  }
  throw std::invalid_argument("[mlx-sys] unknown unary op");
}

std::unique_ptr<array> binary(std::uint8_t op, const array& a, const array& b) {
  MLX_SYS_LOCK;
  switch (static_cast<BinaryOp>(op)) {
#define MLX_SYS_BINARY(f, doc) \
  case BinaryOp::f: return wrap(mc::f(a, b));
#include "ops.def"
  }
  throw std::invalid_argument("[mlx-sys] unknown binary op");
}

std::unique_ptr<array> reduce(
    std::uint8_t op, const array& a, rust::Slice<const std::int32_t> axes_, bool all_axes, bool keepdims) {
  MLX_SYS_LOCK;
  auto axes = to_ints(axes_);
  switch (static_cast<ReduceOp>(op)) {
#define MLX_SYS_REDUCE(f, doc) \
  case ReduceOp::f: return wrap(all_axes ? mc::f(a, keepdims) : mc::f(a, axes, keepdims));
#include "ops.def"
  }
  throw std::invalid_argument("[mlx-sys] unknown reduce op");
}

std::unique_ptr<array> arg_reduce(std::uint8_t op, const array& a, std::int32_t axis, bool all_axes, bool keepdims) {
  MLX_SYS_LOCK;
  switch (static_cast<ArgReduceOp>(op)) {
#define MLX_SYS_ARG_REDUCE(f, doc) \
  case ArgReduceOp::f: return wrap(all_axes ? mc::f(a, keepdims) : mc::f(a, axis, keepdims));
#include "ops.def"
  }
  throw std::invalid_argument("[mlx-sys] unknown arg-reduce op");
}

std::unique_ptr<array> sort_op(std::uint8_t op, const array& a, std::int32_t k, std::int32_t axis, bool all_axes) {
  MLX_SYS_LOCK;
  switch (static_cast<SortOp>(op)) {
#define MLX_SYS_SORT(f, doc) \
  case SortOp::f: return wrap(all_axes ? mc::f(a) : mc::f(a, axis));
#define MLX_SYS_SORT_K(f, k_, doc) \
  case SortOp::f: return wrap(all_axes ? mc::f(a, k) : mc::f(a, k, axis));
#include "ops.def"
  }
  throw std::invalid_argument("[mlx-sys] unknown sort op");
}

std::unique_ptr<array> softmax(const array& a, rust::Slice<const std::int32_t> axes, bool all_axes, bool precise) {
  MLX_SYS_LOCK;
  return wrap(all_axes ? mc::softmax(a, precise) : mc::softmax(a, to_ints(axes), precise));
}

std::unique_ptr<array> cumsum(const array& a, std::int32_t axis, bool reverse, bool inclusive) {
  MLX_SYS_LOCK;
  return wrap(mc::cumsum(a, axis, reverse, inclusive));
}

std::unique_ptr<array> array_equal(const array& a, const array& b, bool equal_nan) {
  MLX_SYS_LOCK;
  return wrap(mc::array_equal(a, b, equal_nan));
}

std::unique_ptr<array> where_(const array& cond, const array& x, const array& y) {
  MLX_SYS_LOCK;
  return wrap(mc::where(cond, x, y));
}

std::unique_ptr<array> astype(const array& a, std::uint8_t dtype) {
  MLX_SYS_LOCK;
  return wrap(mc::astype(a, dtype_from_code(dtype)));
}

std::unique_ptr<array> matmul(const array& a, const array& b) {
  MLX_SYS_LOCK;
  return wrap(mc::matmul(a, b));
}

std::unique_ptr<array> addmm(const array& c, const array& a, const array& b, float alpha, float beta) {
  MLX_SYS_LOCK;
  return wrap(mc::addmm(c, a, b, alpha, beta));
}

std::unique_ptr<array> contiguous(const array& a) {
  MLX_SYS_LOCK;
  return wrap(mc::contiguous(a));
}

std::unique_ptr<array> reshape(const array& a, rust::Slice<const std::int32_t> shape) {
  MLX_SYS_LOCK;
  return wrap(mc::reshape(a, to_shape(shape)));
}

std::unique_ptr<array> transpose(const array& a) {
  MLX_SYS_LOCK;
  return wrap(mc::transpose(a));
}

std::unique_ptr<array> transpose_axes(const array& a, rust::Slice<const std::int32_t> axes) {
  MLX_SYS_LOCK;
  return wrap(mc::transpose(a, to_ints(axes)));
}

std::unique_ptr<array> swapaxes(const array& a, std::int32_t axis1, std::int32_t axis2) {
  MLX_SYS_LOCK;
  return wrap(mc::swapaxes(a, axis1, axis2));
}

std::unique_ptr<array> moveaxis(const array& a, std::int32_t source, std::int32_t destination) {
  MLX_SYS_LOCK;
  return wrap(mc::moveaxis(a, source, destination));
}

std::unique_ptr<array> expand_dims(const array& a, rust::Slice<const std::int32_t> axes) {
  MLX_SYS_LOCK;
  return wrap(mc::expand_dims(a, to_ints(axes)));
}

std::unique_ptr<array> squeeze(const array& a, rust::Slice<const std::int32_t> axes, bool all_axes) {
  MLX_SYS_LOCK;
  return wrap(all_axes ? mc::squeeze(a) : mc::squeeze(a, to_ints(axes)));
}

std::unique_ptr<array> flatten(const array& a, std::int32_t start_axis, std::int32_t end_axis) {
  MLX_SYS_LOCK;
  return wrap(mc::flatten(a, start_axis, end_axis));
}

std::unique_ptr<array> unflatten(const array& a, std::int32_t axis, rust::Slice<const std::int32_t> shape) {
  MLX_SYS_LOCK;
  return wrap(mc::unflatten(a, axis, to_shape(shape)));
}

std::unique_ptr<array> broadcast_to(const array& a, rust::Slice<const std::int32_t> shape) {
  MLX_SYS_LOCK;
  return wrap(mc::broadcast_to(a, to_shape(shape)));
}

std::unique_ptr<array> slice(
    const array& a,
    rust::Slice<const std::int32_t> start,
    rust::Slice<const std::int32_t> stop,
    rust::Slice<const std::int32_t> strides) {
  MLX_SYS_LOCK;
  return wrap(mc::slice(a, to_shape(start), to_shape(stop), to_shape(strides)));
}

std::unique_ptr<array> slice_update(
    const array& src,
    const array& update,
    rust::Slice<const std::int32_t> start,
    rust::Slice<const std::int32_t> stop,
    rust::Slice<const std::int32_t> strides) {
  MLX_SYS_LOCK;
  return wrap(mc::slice_update(src, update, to_shape(start), to_shape(stop), to_shape(strides)));
}

std::unique_ptr<array> concatenate(const std::vector<array>& arrays, std::int32_t axis) {
  MLX_SYS_LOCK;
  return wrap(mc::concatenate(arrays, axis));
}

std::unique_ptr<array> stack(const std::vector<array>& arrays, std::int32_t axis) {
  MLX_SYS_LOCK;
  return wrap(mc::stack(arrays, axis));
}

std::unique_ptr<std::vector<array>> split_sections(const array& a, std::int32_t num, std::int32_t axis) {
  MLX_SYS_LOCK;
  return std::make_unique<std::vector<array>>(mc::split(a, num, axis));
}

std::unique_ptr<std::vector<array>> split_indices(
    const array& a, rust::Slice<const std::int32_t> indices, std::int32_t axis) {
  MLX_SYS_LOCK;
  return std::make_unique<std::vector<array>>(mc::split(a, to_shape(indices), axis));
}

std::unique_ptr<array> take(const array& a, const array& indices, std::int32_t axis) {
  MLX_SYS_LOCK;
  return wrap(mc::take(a, indices, axis));
}

std::unique_ptr<array> take_flat(const array& a, const array& indices) {
  MLX_SYS_LOCK;
  return wrap(mc::take(a, indices));
}

std::unique_ptr<array> take_along_axis(const array& a, const array& indices, std::int32_t axis) {
  MLX_SYS_LOCK;
  return wrap(mc::take_along_axis(a, indices, axis));
}

std::unique_ptr<array> put_along_axis(
    const array& a, const array& indices, const array& values, std::int32_t axis) {
  MLX_SYS_LOCK;
  return wrap(mc::put_along_axis(a, indices, values, axis));
}

std::unique_ptr<array> arange(double start, double stop, double step, std::uint8_t dtype) {
  MLX_SYS_LOCK;
  return wrap(mc::arange(start, stop, step, dtype_from_code(dtype)));
}

std::unique_ptr<array> zeros(rust::Slice<const std::int32_t> shape, std::uint8_t dtype) {
  MLX_SYS_LOCK;
  return wrap(mc::zeros(to_shape(shape), dtype_from_code(dtype)));
}

std::unique_ptr<array> ones(rust::Slice<const std::int32_t> shape, std::uint8_t dtype) {
  MLX_SYS_LOCK;
  return wrap(mc::ones(to_shape(shape), dtype_from_code(dtype)));
}

std::unique_ptr<array> full(rust::Slice<const std::int32_t> shape, const array& vals, std::uint8_t dtype) {
  MLX_SYS_LOCK;
  return wrap(mc::full(to_shape(shape), vals, dtype_from_code(dtype)));
}

std::unique_ptr<array> tri(std::int32_t n, std::int32_t m, std::int32_t k, std::uint8_t dtype) {
  MLX_SYS_LOCK;
  return wrap(mc::tri(n, m, k, dtype_from_code(dtype)));
}

std::unique_ptr<array> tril(const array& a, std::int32_t k) {
  MLX_SYS_LOCK;
  return wrap(mc::tril(a, k));
}

std::unique_ptr<array> triu(const array& a, std::int32_t k) {
  MLX_SYS_LOCK;
  return wrap(mc::triu(a, k));
}

} // namespace mlx_sys
