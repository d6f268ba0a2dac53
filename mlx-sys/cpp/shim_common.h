// Shared helpers of the mlx-sys shim: the process-wide API lock and conversions between
// the cxx boundary types (slices, codes, raw pointers) and MLX's C++ types.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <mutex>
#include <optional>
#include <vector>

#include "mlx/mlx.h"
#include "rust/cxx.h"

namespace mlx_sys {

using mlx::core::array;

// One lock for every call into MLX made through mlx-sys (and, by contract, mlx-ext).
// MLX graph nodes are shared, mutable (eval detaches them, sets status and data) and not
// internally synchronized, while the Rust wrappers are Send + Sync. Serializing all calls
// makes that sound; kernels still run on MLX's own stream threads. Recursive so that a
// shim helper may call another one.
std::recursive_mutex& api_mutex();

// Hold for the duration of one shim call.
#define MLX_SYS_LOCK std::lock_guard<std::recursive_mutex> mlx_sys_guard_(::mlx_sys::api_mutex())

// MLX dtype from the Dtype::Val ordinal used on the Rust side; throws on a bad code.
mlx::core::Dtype dtype_from_code(std::uint8_t code);
// Bridge code of a dtype this shim does not know.
constexpr std::uint8_t kUnknownDtype = 255;
std::uint8_t dtype_to_code(mlx::core::Dtype dtype);

inline mlx::core::Shape to_shape(rust::Slice<const std::int32_t> s) {
  return mlx::core::Shape(s.begin(), s.end());
}

inline std::vector<int> to_ints(rust::Slice<const std::int32_t> s) {
  return std::vector<int>(s.begin(), s.end());
}

// Null means "not given".
inline std::optional<array> opt(const array* a) {
  return a ? std::optional<array>(*a) : std::nullopt;
}

// Every array handed to Rust goes through here, so each has a dtype the bridge knows (an MLX
// with more dtypes, see MLX_SRC_DIR, gets an error instead): Array::dtype relies on it. The
// check runs inside the call that made the array, under its lock.
inline std::unique_ptr<array> wrap(array a) {
  if (dtype_to_code(a.dtype()) == kUnknownDtype) {
    throw std::invalid_argument("[mlx-sys] MLX returned an array of a dtype this binding does not know");
  }
  return std::make_unique<array>(std::move(a));
}

} // namespace mlx_sys
