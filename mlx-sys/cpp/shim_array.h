// Arrays across the bridge: construction from host bytes, metadata, evaluation, reading back,
// and std::vector<array> helpers for ops that take or return several arrays.
#pragma once

#include "shim_common.h"

namespace mlx_sys {

rust::String mlx_version();

// Copies `data` (host bytes of `dtype`, row-major) into a new MLX array of `shape`.
std::unique_ptr<array> array_from_bytes(
    rust::Slice<const std::uint8_t> data,
    rust::Slice<const std::int32_t> shape,
    std::uint8_t dtype);
// A 0-d array holding `value` converted to `dtype`.
std::unique_ptr<array> array_from_f64(double value, std::uint8_t dtype);
std::unique_ptr<array> array_from_i64(std::int64_t value, std::uint8_t dtype);

std::unique_ptr<array> array_clone(const array& a);
void array_free(std::unique_ptr<array> a);

std::size_t array_ndim(const array& a);
rust::Vec<std::int32_t> array_shape(const array& a);
rust::Vec<std::int64_t> array_strides(const array& a);
std::size_t array_size(const array& a);
std::size_t array_nbytes(const array& a);
std::size_t array_itemsize(const array& a);
std::uint8_t array_dtype(const array& a);
std::uintptr_t array_id(const array& a);
// 0 unscheduled, 1 evaluated (scheduled, maybe still running), 2 available.
std::uint8_t array_status(const array& a);

void array_eval(const array& a);
// Evaluates `a` and copies its elements (row-major, contiguous) into `out`, which must be
// exactly nbytes long.
void array_copy_to(const array& a, rust::Slice<std::uint8_t> out);
// MLX's own item<T>() for T matching the dtype; copies the value's bytes into `out`.
void array_item_to(const array& a, rust::Slice<std::uint8_t> out);
// MLX's printer (evaluates the array).
rust::String array_to_string(const array& a);

std::unique_ptr<std::vector<array>> new_array_vec();
void array_vec_push(std::vector<array>& v, const array& a);
std::unique_ptr<array> array_vec_get(const std::vector<array>& v, std::size_t i);
void array_vec_free(std::unique_ptr<std::vector<array>> v);

void eval_all(const std::vector<array>& v);
void async_eval_all(const std::vector<array>& v);

} // namespace mlx_sys
