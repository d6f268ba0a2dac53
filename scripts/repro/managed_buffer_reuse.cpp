// Does a GPU kernel's output land in a managed buffer the host has read, and what does that
// cost? (reports/upstream/cuda-managed-buffer-reuse.md). A decode-like loop: each step makes
// fresh bf16 logits [1, 151936], casts them to float32 (the cast under test), evaluates, and
// reads the float32 result on the host, as a harness checking logits does; then drops both.
// The host read moves the buffer to managed memory (Buffer::raw_ptr), the allocator caches it,
// and the next step's cast reuses it. Variants:
//   as-is        the loop above
//   clear-cache  mx::clear_cache() after each read, so the next cast gets a new device buffer
//                (the doc's confirmation: expected to remove the cost if the reuse is the cause)
// Printed per variant: the cast's wall time (eval + synchronize, launch included) over the
// steps after the first, median and maximum, in microseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "mlx/mlx.h"

namespace mx = mlx::core;

int main() {
  if (!mx::gpu::is_available()) {
    std::printf("not run (this MLX has no GPU)\n");
    return 2;
  }
  mx::set_default_device(mx::Device::gpu);
  auto base = mx::random::normal({1, 151936}, mx::bfloat16, 0.0, 1.0, mx::random::key(3));
  mx::eval({base});
  constexpr int steps = 40;
  for (std::string variant : {"as-is", "clear-cache", "as-is"}) {
    std::vector<double> us;
    double checksum = 0;
    for (int s = 0; s < steps; ++s) {
      auto logits = mx::add(base, mx::array(static_cast<float>(s), mx::bfloat16));
      mx::eval({logits});
      mx::synchronize();
      auto l32 = mx::astype(logits, mx::float32);
      auto t0 = std::chrono::steady_clock::now();
      mx::eval({l32});
      mx::synchronize();
      auto t1 = std::chrono::steady_clock::now();
      const float* host = l32.data<float>();
      checksum += host[s] + host[l32.size() - 1 - s];
      if (s > 0) {
        us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      }
      if (variant == "clear-cache") {
        l32 = mx::array(0.0f);
        logits = mx::array(0.0f);
        mx::clear_cache();
      }
    }
    std::sort(us.begin(), us.end());
    std::printf(
        "%-12s cast of 608 KiB: median %8.1f us, max %8.1f us over %zu steps (checksum %g)\n",
        variant.c_str(), us[us.size() / 2], us.back(), us.size(), checksum);
  }
  return 0;
}
