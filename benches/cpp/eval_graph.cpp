// The cost of evaluating a graph per node on the CPU: SHAPE (chain: each node adds 1 to the
// previous; fanin: N nodes each adding 1 to one evaluated input, summed pairwise into one
// output) of N scalar nodes, built and evaluated REPS times. Prints the median seconds per node
// (build + eval), the peak memory of one evaluation above what came before, and a digest of
// the output, so that two builds (benches/cpp/ab) can be compared side by side.
//
// usage: eval_graph [chain|fanin] [N REPS]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "mlx/mlx.h"

using namespace mlx::core;

array build(bool chain, int n, const array& x) {
  if (chain) {
    auto y = x;
    for (int i = 0; i < n; ++i) {
      y = add(y, array(1.0f));
    }
    return y;
  }
  std::vector<array> level;
  for (int i = 0; i < n; ++i) {
    level.push_back(add(x, array(1.0f)));
  }
  while (level.size() > 1) {
    std::vector<array> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) {
      next.push_back(add(level[i], level[i + 1]));
    }
    if (level.size() % 2) {
      next.push_back(level.back());
    }
    level = std::move(next);
  }
  return level[0];
}

int main(int argc, char** argv) {
  bool chain = argc < 2 || std::strcmp(argv[1], "fanin") != 0;
  int n = argc > 2 ? std::atoi(argv[2]) : 10000;
  int reps = argc > 3 ? std::atoi(argv[3]) : 5;
  set_default_device(Device::cpu);
  auto x = array(0.5f);
  eval(x);
  std::vector<double> seconds;
  size_t peak = 0;
  float value = 0;
  for (int r = 0; r < reps; ++r) {
    size_t before = get_active_memory();
    reset_peak_memory();
    auto start = std::chrono::steady_clock::now();
    auto y = build(chain, n, x);
    eval(y);
    seconds.push_back(std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count() /
                      n);
    peak = std::max(peak, get_peak_memory() - before);
    value = y.item<float>();
  }
  std::sort(seconds.begin(), seconds.end());
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  std::printf("%.9f %zu %08x\n", seconds[seconds.size() / 2], peak, bits);
  return 0;
}
