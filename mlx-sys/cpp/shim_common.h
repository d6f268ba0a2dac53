// Shared helpers of the mlx-sys shim: the process-wide API lock and conversions between
// the cxx boundary types (slices, codes, raw pointers) and MLX's C++ types.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "mlx/mlx.h"
#include "rust/cxx.h"

namespace mlx_sys {

using mlx::core::array;

// One lock for every call into MLX made through mlx-sys (and, by contract, mlx-ext), held for
// the call's graph work but not while it waits for kernels. What MLX v0.32.4 itself guarantees
// across threads (rust/mlx's README, "Threads", has the references):
// - synchronized by MLX: the stream registry, the scheduler (one worker thread and queue per
//   stream), CPU events, the CPU allocator; per thread: default streams, command encoders,
//   tracing state. A stream runs work only from the thread that made it.
// - not synchronized: graph nodes. Evaluation, drops and even const reads (is_available)
//   write a node's status, event, primitive, inputs and siblings; only its reference count
//   is atomic. Arrays are Send + Sync on the Rust side, so any node may be reachable from
//   several threads: every touch of a node holds this lock. So does the default device,
//   a plain global.
// An eval therefore holds it for MLX's graph walk (which only enqueues kernels on the stream
// threads) and waits for the kernels without it (eval_then_wait), so other threads evaluate,
// build graphs and drop arrays meanwhile. Recursive so that a shim helper may call another.
std::recursive_mutex& api_mutex();

// Hold for the duration of one shim call.
#define MLX_SYS_LOCK std::lock_guard<std::recursive_mutex> mlx_sys_guard_(::mlx_sys::api_mutex())

// eval(outputs) without holding the lock while kernels run: MLX's async_eval walks the graph
// under the lock, attaching an event to every node it schedules (so readers on other threads
// wait for the data); then the outputs' streams are synchronized (see synchronize_stream); then
// eval() under the lock marks the outputs available. Kernel errors are thrown as by eval().
// (Not Event::wait: a shared libmlx does not export it.)
void eval_then_wait(std::span<const array> outputs);

// Waits for everything queued on `s`. A CPU stream's synchronize only enqueues a task on the
// stream's worker and waits for it (MLX scheduler.cpp, synchronize): no graph node is touched,
// so no lock is held while it waits. A GPU stream's synchronize uses the device's command
// encoder: under the lock.
void synchronize_stream(const mlx::core::Stream& s);

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
