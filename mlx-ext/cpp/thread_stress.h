// Several threads evaluating at once through MLX's own C++ API, as upstream's thread model
// allows (each thread evaluates its own arrays on streams it made itself) and without mlx-sys's
// API lock: what is shared between the threads is MLX's (the scheduler, the allocator, the
// stream registry). For ThreadSanitizer (scripts/sanitize thread) and
// as a plain correctness check in every build (tests/tests/thread_stress.rs).
#pragma once

#include <cstdint>

#include "rust/cxx.h"

namespace mlx_ext {

// `threads` threads each evaluate `graphs` seeded random graphs over two CPU streams of their
// own: uint32 element-wise ops with multi-output nodes (divmod) and cross-stream edges, and
// gather_mm without lhs indices over 40 batch sizes (the cache holds 32: hits, inserts and
// evictions race); evaluated with async_eval and eval of parts first, with handles to
// intermediate nodes released before the final eval. Every value is checked against the same
// computation on the host and every gather_mm against one given arange indices. Returns
// the number of mismatches; throws with the first thread's error message.
std::uint64_t stress_eval_threads(std::uint32_t threads, std::uint32_t graphs, std::uint64_t seed);

} // namespace mlx_ext
