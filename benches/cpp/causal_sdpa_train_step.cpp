// One training step of causal attention on the CPU: loss = sum(sdpa(q, k, v)^2)
// and its gradients with respect to q, k and v, evaluated together. Prints the
// median seconds of REPS steps, the peak memory of one step above what was
// allocated before it, and a digest of the gradients' bits, so that two builds
// (benches/cpp/ab) can be compared side by side.
//
// usage: causal_sdpa_train_step [HEADS L HEAD_DIM REPS [array]]
//   array: the same causal mask passed as a bool array (stock MLX's chain in any build)
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "mlx/mlx.h"

using namespace mlx::core;

int main(int argc, char** argv) {
  int heads = argc > 1 ? std::atoi(argv[1]) : 8;
  int len = argc > 2 ? std::atoi(argv[2]) : 1024;
  int dim = argc > 3 ? std::atoi(argv[3]) : 64;
  int reps = argc > 4 ? std::atoi(argv[4]) : 5;
  bool array_mask = argc > 5 && std::strcmp(argv[5], "array") == 0;
  set_default_device(Device::cpu);
  auto ks = random::split(random::key(1), 3);
  auto q = random::normal({1, heads, len, dim}, take(ks, 0, 0));
  auto k = random::normal({1, heads, len, dim}, take(ks, 1, 0));
  auto v = random::normal({1, heads, len, dim}, take(ks, 2, 0));
  eval(q, k, v);
  float scale = 1.0f / std::sqrt(static_cast<float>(dim));
  auto mask = greater_equal(
      expand_dims(arange(0, len), 1), expand_dims(arange(0, len), 0));
  auto loss = [scale, array_mask, &mask](const std::vector<array>& in) {
    auto o = array_mask ? fast::scaled_dot_product_attention(
                              in[0], in[1], in[2], scale, "array", mask)
                        : fast::scaled_dot_product_attention(
                              in[0], in[1], in[2], scale, "causal");
    return std::vector<array>{sum(square(o))};
  };
  std::vector<double> seconds;
  size_t peak = 0;
  uint64_t digest = 0xcbf29ce484222325ULL;
  for (int r = 0; r < reps; ++r) {
    size_t before = get_active_memory();
    reset_peak_memory();
    auto start = std::chrono::steady_clock::now();
    auto [value, grads] = vjp(loss, {q, k, v}, {array(1.0f)});
    grads.push_back(value[0]);
    eval(grads);
    grads.pop_back();
    seconds.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count());
    peak = std::max(peak, get_peak_memory() - before);
    if (r == 0) {
      for (auto& g : grads) {
        auto bits = view(g, uint32);
        eval(bits);
        auto* p = bits.data<uint32_t>();
        for (size_t i = 0; i < bits.size(); ++i) {
          digest = (digest ^ p[i]) * 0x100000001b3ULL;
        }
      }
    }
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf(
      "%.6f %zu %016llx\n",
      seconds[seconds.size() / 2],
      peak,
      static_cast<unsigned long long>(digest));
  return 0;
}
