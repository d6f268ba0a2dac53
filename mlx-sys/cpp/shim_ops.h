// mlx::core ops (ops.h): element-wise, shape, indexing, reductions, sorting, creation, matmul.
#pragma once

#include "shim_common.h"

namespace mlx_sys {

// The table-driven families: `op` selects a line of ops.def (see there); an unknown one throws.
std::unique_ptr<array> unary(std::uint8_t op, const array& a);
std::unique_ptr<array> binary(std::uint8_t op, const array& a, const array& b);
// all_axes: reduce over every axis (axes ignored).
std::unique_ptr<array> reduce(
    std::uint8_t op, const array& a, rust::Slice<const std::int32_t> axes, bool all_axes, bool keepdims);
std::unique_ptr<array> arg_reduce(std::uint8_t op, const array& a, std::int32_t axis, bool all_axes, bool keepdims);
// SORT lines ignore k; SORT_K lines take it (kth, or topk's count).
std::unique_ptr<array> sort_op(std::uint8_t op, const array& a, std::int32_t k, std::int32_t axis, bool all_axes);

std::unique_ptr<array> softmax(const array& a, rust::Slice<const std::int32_t> axes, bool all_axes, bool precise);
std::unique_ptr<array> cumsum(const array& a, std::int32_t axis, bool reverse, bool inclusive);
std::unique_ptr<array> array_equal(const array& a, const array& b, bool equal_nan);
std::unique_ptr<array> where_(const array& cond, const array& x, const array& y);
std::unique_ptr<array> astype(const array& a, std::uint8_t dtype);
std::unique_ptr<array> matmul(const array& a, const array& b);
std::unique_ptr<array> addmm(const array& c, const array& a, const array& b, float alpha, float beta);
std::unique_ptr<array> contiguous(const array& a);

std::unique_ptr<array> reshape(const array& a, rust::Slice<const std::int32_t> shape);
std::unique_ptr<array> transpose(const array& a);
std::unique_ptr<array> transpose_axes(const array& a, rust::Slice<const std::int32_t> axes);
std::unique_ptr<array> swapaxes(const array& a, std::int32_t axis1, std::int32_t axis2);
std::unique_ptr<array> moveaxis(const array& a, std::int32_t source, std::int32_t destination);
std::unique_ptr<array> expand_dims(const array& a, rust::Slice<const std::int32_t> axes);
std::unique_ptr<array> squeeze(const array& a, rust::Slice<const std::int32_t> axes, bool all_axes);
std::unique_ptr<array> flatten(const array& a, std::int32_t start_axis, std::int32_t end_axis);
std::unique_ptr<array> unflatten(const array& a, std::int32_t axis, rust::Slice<const std::int32_t> shape);
std::unique_ptr<array> broadcast_to(const array& a, rust::Slice<const std::int32_t> shape);
std::unique_ptr<array> slice(
    const array& a,
    rust::Slice<const std::int32_t> start,
    rust::Slice<const std::int32_t> stop,
    rust::Slice<const std::int32_t> strides);
std::unique_ptr<array> slice_update(
    const array& src,
    const array& update,
    rust::Slice<const std::int32_t> start,
    rust::Slice<const std::int32_t> stop,
    rust::Slice<const std::int32_t> strides);
std::unique_ptr<array> concatenate(const std::vector<array>& arrays, std::int32_t axis);
std::unique_ptr<array> stack(const std::vector<array>& arrays, std::int32_t axis);
std::unique_ptr<std::vector<array>> split_sections(const array& a, std::int32_t num, std::int32_t axis);
std::unique_ptr<std::vector<array>> split_indices(
    const array& a, rust::Slice<const std::int32_t> indices, std::int32_t axis);

std::unique_ptr<array> take(const array& a, const array& indices, std::int32_t axis);
std::unique_ptr<array> take_flat(const array& a, const array& indices);
std::unique_ptr<array> take_along_axis(const array& a, const array& indices, std::int32_t axis);
std::unique_ptr<array> put_along_axis(
    const array& a, const array& indices, const array& values, std::int32_t axis);

std::unique_ptr<array> arange(double start, double stop, double step, std::uint8_t dtype);
std::unique_ptr<array> zeros(rust::Slice<const std::int32_t> shape, std::uint8_t dtype);
std::unique_ptr<array> ones(rust::Slice<const std::int32_t> shape, std::uint8_t dtype);
std::unique_ptr<array> full(rust::Slice<const std::int32_t> shape, const array& vals, std::uint8_t dtype);
std::unique_ptr<array> tri(std::int32_t n, std::int32_t m, std::int32_t k, std::uint8_t dtype);
std::unique_ptr<array> tril(const array& a, std::int32_t k);
std::unique_ptr<array> triu(const array& a, std::int32_t k);

} // namespace mlx_sys
