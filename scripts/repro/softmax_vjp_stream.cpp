// Stock Softmax::vjp (mlx/primitives.cpp) builds its last subtract without a stream, so on
// the default one: the gradient of a softmax on a CPU stream runs in part on the GPU when the
// GPU is the default device. Prints where each op of such a gradient runs; exits 1 if any op
// left the CPU. Built and run against each arm's install by `scripts/gpu/run repro`; without a
// GPU the default device is the CPU and there is nothing to show.
#include <cstdio>
#include <string>
#include <unordered_set>
#include <vector>

#include "mlx/mlx.h"
#include "mlx/primitives.h"

namespace mx = mlx::core;

int main() {
  if (!mx::gpu::is_available()) {
    std::printf("softmax vjp: no GPU in this build, nothing to show\n");
    return 0;
  }
  mx::set_default_device(mx::Device::gpu);
  const auto cpu = mx::Device::cpu;
  auto x = mx::random::normal({4, 8}, mx::random::key(0), cpu);
  auto softmax_on_cpu = [cpu](const std::vector<mx::array>& in) {
    return std::vector<mx::array>{mx::softmax(in[0], std::vector<int>{-1}, true, cpu)};
  };
  auto grad = mx::vjp(softmax_on_cpu, {x}, {mx::ones({4, 8}, mx::float32, cpu)}).second[0];

  std::vector<mx::array> todo{grad};
  std::unordered_set<std::uintptr_t> seen;
  int off_cpu = 0;
  while (!todo.empty()) {
    auto a = todo.back();
    todo.pop_back();
    if (!a.has_primitive() || !seen.insert(a.id()).second) {
      continue;
    }
    bool on_gpu = a.primitive().stream().device == mx::Device::gpu;
    off_cpu += on_gpu;
    std::printf("softmax vjp: %-10s on the %s\n", a.primitive().name(), on_gpu ? "GPU" : "CPU");
    for (auto& in : a.inputs()) {
      todo.push_back(in);
    }
  }
  std::printf("softmax vjp on a CPU stream, default device GPU: %d op(s) on the GPU\n", off_cpu);
  return off_cpu ? 1 : 0;
}
