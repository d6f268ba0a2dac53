// mlx-rs seeds RandomState::new() with mach_approximate_time() (through the mach-sys crate,
// which only declares it). Off Apple platforms nothing defines it: this does, with the same
// meaning, a monotonic clock in nanoseconds. Compiled on non-Apple targets only.

#include <chrono>
#include <cstdint>

extern "C" uint64_t mach_approximate_time() {
  auto now = std::chrono::steady_clock::now().time_since_epoch();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
}
