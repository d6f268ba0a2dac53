#include "sanitizer_probe.h"

#include <climits>
#include <thread>
#include <vector>

#include "shim_common.h"

namespace mlx_ext {

namespace {
// Read through a volatile, so no compiler proves the index or the sum constant.
volatile std::int32_t past_the_end = 4;
} // namespace

std::int32_t probe_heap_overflow() {
  // A size the compiler cannot see either: else UBSan's object-size check, which knows the
  // size of `new int[4]`, stops the program before ASan looks.
  auto* values = new std::int32_t[past_the_end]{1, 2, 3, 4};
  std::int32_t v = values[past_the_end];
  delete[] values;
  return v;
}

std::int32_t probe_signed_overflow(std::int32_t x) {
  volatile std::int32_t max = INT_MAX;
  return max + x;
}

std::int32_t probe_data_race() {
  std::int32_t counter = 0;
  auto bump = [&counter] {
    for (int i = 0; i < 10000; ++i) {
      counter = counter + 1;
    }
  };
  std::thread a(bump), b(bump);
  a.join();
  b.join();
  return counter;
}

float probe_mlx_out_of_range_take() {
  using namespace mlx::core;
  MLX_SYS_LOCK;
  // No buffer reuse: the source gets an allocation of exactly its size, so src[n] is past it.
  set_cache_limit(0);
  constexpr int n = 1000;
  std::vector<float> host(n, 1.0f);
  auto src = array(host.data(), Shape{n}, float32);
  auto out = take(src, array({static_cast<std::uint32_t>(n)}, uint32), 0);
  eval(out);
  return out.item<float>();
}

void probe_mlx_default_device_race() {
  using namespace mlx::core;
  auto set = [] {
    for (int i = 0; i < 10000; ++i) {
      set_default_device(Device::cpu);
    }
  };
  std::thread a(set), b(set);
  a.join();
  b.join();
}

} // namespace mlx_ext
