// Shared helpers of the mlx-sys shim: the process-wide API lock and conversions between
// the cxx boundary types (slices, codes, raw pointers) and MLX's C++ types.
#pragma once

#include <cstdint>
#include <memory>
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

inline std::unique_ptr<array> wrap(array a) {
  return std::make_unique<array>(std::move(a));
}

} // namespace mlx_sys
