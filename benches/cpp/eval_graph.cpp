// The cost of evaluating a graph per node on the CPU, by SHAPE, built and evaluated REPS times:
//   chain N     N scalar adds, each reading the previous one
//   fanin N     N scalar adds on one evaluated input, summed pairwise into one output
//   multiout N  a chain of N/2 divmods (one primitive, two outputs) whose outputs are added
//   streams N   a chain of N scalar adds alternating between two CPU streams (a cross-stream
//               dependency at every node)
//   decode N    N decode-shaped layers at batch 1 (rms_norm, 2048x2048 matmul, SiLU, residual)
// Prints the median seconds per node (build + eval), the peak memory of one evaluation above
// what came before, and a digest of the output's bits, so that two builds (benches/cpp/ab) can
// be compared side by side.
//
// usage: eval_graph [chain|fanin|multiout|streams|decode] [N REPS]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "mlx/mlx.h"

using namespace mlx::core;

constexpr int kHidden = 2048;

struct Graph {
  array out;
  int nodes;
};

Graph chain(int n, const array& x) {
  auto y = x;
  for (int i = 0; i < n; ++i) {
    y = add(y, array(1.0f));
  }
  return {y, n};
}

Graph fanin(int n, const array& x) {
  std::vector<array> level;
  for (int i = 0; i < n; ++i) {
    level.push_back(add(x, array(1.0f)));
  }
  int nodes = n;
  while (level.size() > 1) {
    std::vector<array> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) {
      next.push_back(add(level[i], level[i + 1]));
      ++nodes;
    }
    if (level.size() % 2) {
      next.push_back(level.back());
    }
    level = std::move(next);
  }
  return {level[0], nodes};
}

Graph multiout(int n, const array& x) {
  auto y = x;
  for (int i = 0; i < n / 2; ++i) {
    auto qr = divmod(add(y, array(7.0f)), array(3.0f));
    y = add(qr[0], qr[1]);
  }
  return {y, 3 * (n / 2)};  // add, divmod (one node), add
}

Graph streams(int n, const array& x) {
  static const Stream s[2] = {new_stream(Device::cpu), new_stream(Device::cpu)};
  auto y = x;
  for (int i = 0; i < n; ++i) {
    y = add(y, array(1.0f), s[i % 2]);
  }
  return {y, n};
}

Graph decode(int layers, const array& x, const std::vector<array>& w, const array& gamma) {
  auto h = x;
  for (int l = 0; l < layers; ++l) {
    auto z = matmul(fast::rms_norm(h, gamma, 1e-6f), w[l]);
    h = add(h, multiply(z, sigmoid(z)));
  }
  return {h, 5 * layers};
}

uint64_t fnv1a(const array& a) {
  auto bytes = static_cast<const unsigned char*>(a.data<void>());
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < a.nbytes(); ++i) {
    h = (h ^ bytes[i]) * 0x100000001b3ull;
  }
  return h;
}

int main(int argc, char** argv) {
  std::string shape = argc > 1 ? argv[1] : "chain";
  int n = argc > 2 ? std::atoi(argv[2]) : 10000;
  int reps = argc > 3 ? std::atoi(argv[3]) : 5;
  set_default_device(Device::cpu);
  bool dense = shape == "decode";
  auto x = dense ? random::normal({1, kHidden}, float32, 0.0f, 1.0f, random::key(1)) : array(0.5f);
  std::vector<array> w;
  auto gamma = ones({kHidden});
  for (int l = 0; dense && l < n; ++l) {
    w.push_back(random::normal({kHidden, kHidden}, float32, 0.0f, 0.02f, random::key(2 + l)));
  }
  eval(x, gamma);
  eval(w);
  std::function<Graph()> build;
  if (shape == "chain") {
    build = [&] { return chain(n, x); };
  } else if (shape == "fanin") {
    build = [&] { return fanin(n, x); };
  } else if (shape == "multiout") {
    build = [&] { return multiout(n, x); };
  } else if (shape == "streams") {
    build = [&] { return streams(n, x); };
  } else if (dense) {
    build = [&] { return decode(n, x, w, gamma); };
  } else {
    std::fprintf(stderr, "eval_graph: unknown shape %s\n", shape.c_str());
    return 2;
  }
  std::vector<double> seconds;
  size_t peak = 0;
  uint64_t digest = 0;
  for (int r = 0; r < reps; ++r) {
    size_t before = get_active_memory();
    reset_peak_memory();
    auto start = std::chrono::steady_clock::now();
    auto g = build();
    eval(g.out);
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
        g.nodes);
    peak = std::max(peak, get_peak_memory() - before);
    digest = fnv1a(g.out);
  }
  std::sort(seconds.begin(), seconds.end());
  std::printf("%.9f %zu %016llx\n", seconds[seconds.size() / 2], peak,
              static_cast<unsigned long long>(digest));
  return 0;
}
