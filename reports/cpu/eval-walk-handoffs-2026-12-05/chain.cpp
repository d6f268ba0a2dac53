// Chain of n scalar adds, built and evaluated reps times; prints median us per node.
#include <mlx/mlx.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>
namespace mc = mlx::core;
int main(int argc, char** argv) {
  int n = atoi(argv[1]), reps = atoi(argv[2]);
  mc::set_default_device(mc::Device::cpu);
  auto x = mc::array(0.0f);
  mc::eval(x);
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto s = std::chrono::steady_clock::now();
    auto y = x;
    for (int i = 0; i < n; ++i) y = mc::add(y, mc::array(1.0f));
    mc::eval(y);
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count() / n);
  }
  std::sort(t.begin(), t.end());
  printf("%.3f\n", t[t.size() / 2]);
}
