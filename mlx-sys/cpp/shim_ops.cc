#include "shim_ops.h"

#include <stdexcept>

namespace mlx_sys {

namespace mc = mlx::core;

std::unique_ptr<array> unary(UnaryOp op, const array& a) {
  MLX_SYS_LOCK;
  switch (op) {
    case UnaryOp::Abs: return wrap(mc::abs(a));
    case UnaryOp::Negative: return wrap(mc::negative(a));
    case UnaryOp::Sign: return wrap(mc::sign(a));
    case UnaryOp::Exp: return wrap(mc::exp(a));
    case UnaryOp::Expm1: return wrap(mc::expm1(a));
    case UnaryOp::Log: return wrap(mc::log(a));
    case UnaryOp::Log1p: return wrap(mc::log1p(a));
    case UnaryOp::Log2: return wrap(mc::log2(a));
    case UnaryOp::Log10: return wrap(mc::log10(a));
    case UnaryOp::Sqrt: return wrap(mc::sqrt(a));
    case UnaryOp::Rsqrt: return wrap(mc::rsqrt(a));
    case UnaryOp::Square: return wrap(mc::square(a));
    case UnaryOp::Reciprocal: return wrap(mc::reciprocal(a));
    case UnaryOp::Sigmoid: return wrap(mc::sigmoid(a));
    case UnaryOp::Tanh: return wrap(mc::tanh(a));
    case UnaryOp::Sin: return wrap(mc::sin(a));
    case UnaryOp::Cos: return wrap(mc::cos(a));
    case UnaryOp::Erf: return wrap(mc::erf(a));
    case UnaryOp::Floor: return wrap(mc::floor(a));
    case UnaryOp::Ceil: return wrap(mc::ceil(a));
    case UnaryOp::Round: return wrap(mc::round(a));
    case UnaryOp::LogicalNot: return wrap(mc::logical_not(a));
    case UnaryOp::IsNan: return wrap(mc::isnan(a));
    case UnaryOp::IsInf: return wrap(mc::isinf(a));
    case UnaryOp::IsFinite: return wrap(mc::isfinite(a));
    case UnaryOp::Copy: return wrap(mc::copy(a));
    case UnaryOp::StopGradient: return wrap(mc::stop_gradient(a));
  }
  throw std::invalid_argument("[mlx-sys] unknown unary op");
}

std::unique_ptr<array> binary(BinaryOp op, const array& a, const array& b) {
  MLX_SYS_LOCK;
  switch (op) {
    case BinaryOp::Add: return wrap(mc::add(a, b));
    case BinaryOp::Subtract: return wrap(mc::subtract(a, b));
    case BinaryOp::Multiply: return wrap(mc::multiply(a, b));
    case BinaryOp::Divide: return wrap(mc::divide(a, b));
    case BinaryOp::FloorDivide: return wrap(mc::floor_divide(a, b));
    case BinaryOp::Remainder: return wrap(mc::remainder(a, b));
    case BinaryOp::Power: return wrap(mc::power(a, b));
    case BinaryOp::Maximum: return wrap(mc::maximum(a, b));
    case BinaryOp::Minimum: return wrap(mc::minimum(a, b));
    case BinaryOp::Equal: return wrap(mc::equal(a, b));
    case BinaryOp::NotEqual: return wrap(mc::not_equal(a, b));
    case BinaryOp::Greater: return wrap(mc::greater(a, b));
    case BinaryOp::GreaterEqual: return wrap(mc::greater_equal(a, b));
    case BinaryOp::Less: return wrap(mc::less(a, b));
    case BinaryOp::LessEqual: return wrap(mc::less_equal(a, b));
    case BinaryOp::LogicalAnd: return wrap(mc::logical_and(a, b));
    case BinaryOp::LogicalOr: return wrap(mc::logical_or(a, b));
    case BinaryOp::LogAddExp: return wrap(mc::logaddexp(a, b));
    case BinaryOp::Arctan2: return wrap(mc::arctan2(a, b));
  }
  throw std::invalid_argument("[mlx-sys] unknown binary op");
}

std::unique_ptr<array> reduce(
    ReduceOp op, const array& a, rust::Slice<const std::int32_t> axes_, bool all_axes, bool keepdims) {
  MLX_SYS_LOCK;
  if (all_axes) {
    switch (op) {
      case ReduceOp::Sum: return wrap(mc::sum(a, keepdims));
      case ReduceOp::Mean: return wrap(mc::mean(a, keepdims));
      case ReduceOp::Max: return wrap(mc::max(a, keepdims));
      case ReduceOp::Min: return wrap(mc::min(a, keepdims));
      case ReduceOp::Prod: return wrap(mc::prod(a, keepdims));
      case ReduceOp::All: return wrap(mc::all(a, keepdims));
      case ReduceOp::Any: return wrap(mc::any(a, keepdims));
      case ReduceOp::LogSumExp: return wrap(mc::logsumexp(a, keepdims));
      case ReduceOp::Var: return wrap(mc::var(a, keepdims));
    }
  } else {
    auto axes = to_ints(axes_);
    switch (op) {
      case ReduceOp::Sum: return wrap(mc::sum(a, axes, keepdims));
      case ReduceOp::Mean: return wrap(mc::mean(a, axes, keepdims));
      case ReduceOp::Max: return wrap(mc::max(a, axes, keepdims));
      case ReduceOp::Min: return wrap(mc::min(a, axes, keepdims));
      case ReduceOp::Prod: return wrap(mc::prod(a, axes, keepdims));
      case ReduceOp::All: return wrap(mc::all(a, axes, keepdims));
      case ReduceOp::Any: return wrap(mc::any(a, axes, keepdims));
      case ReduceOp::LogSumExp: return wrap(mc::logsumexp(a, axes, keepdims));
      case ReduceOp::Var: return wrap(mc::var(a, axes, keepdims));
    }
  }
  throw std::invalid_argument("[mlx-sys] unknown reduce op");
}

std::unique_ptr<array> arg_reduce(ArgReduceOp op, const array& a, std::int32_t axis, bool all_axes, bool keepdims) {
  MLX_SYS_LOCK;
  switch (op) {
    case ArgReduceOp::Argmax:
      return wrap(all_axes ? mc::argmax(a, keepdims) : mc::argmax(a, axis, keepdims));
    case ArgReduceOp::Argmin:
      return wrap(all_axes ? mc::argmin(a, keepdims) : mc::argmin(a, axis, keepdims));
  }
  throw std::invalid_argument("[mlx-sys] unknown arg-reduce op");
}

std::unique_ptr<array> sort_op(SortOp op, const array& a, std::int32_t k, std::int32_t axis, bool all_axes) {
  MLX_SYS_LOCK;
  switch (op) {
    case SortOp::Sort: return wrap(all_axes ? mc::sort(a) : mc::sort(a, axis));
    case SortOp::Argsort: return wrap(all_axes ? mc::argsort(a) : mc::argsort(a, axis));
    case SortOp::Partition: return wrap(all_axes ? mc::partition(a, k) : mc::partition(a, k, axis));
    case SortOp::Argpartition:
      return wrap(all_axes ? mc::argpartition(a, k) : mc::argpartition(a, k, axis));
    case SortOp::Topk: return wrap(all_axes ? mc::topk(a, k) : mc::topk(a, k, axis));
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
