// Deliberate bugs, for the test that a sanitized build (MLX_SANITIZE) really is instrumented
// and stops on a finding (tests/tests/sanitizers.rs runs each in a child process). In our C++
// and, through MLX calls that break MLX's rules on purpose, in libmlx itself. Never called
// outside that test: each one is undefined behaviour in a normal build.
#pragma once

#include <cstdint>

namespace mlx_ext {

// Reads one int past a heap array (ASan: heap-buffer-overflow, in this file).
std::int32_t probe_heap_overflow();
// INT32_MAX + 1 on a value the compiler cannot see (UBSan: signed integer overflow).
std::int32_t probe_signed_overflow(std::int32_t x);
// Two threads increment one plain int (TSan: data race, in this file).
std::int32_t probe_data_race();
// MLX's CPU gather reads src[n] of an n-element array: `take` with an index out of range,
// which MLX does not check (ASan: heap-buffer-overflow in libmlx's cpu/indexing.cpp).
float probe_mlx_out_of_range_take();
// Two threads set MLX's default device, a plain global, without the API lock (TSan: data race
// in libmlx's device.cpp).
void probe_mlx_default_device_race();

} // namespace mlx_ext
