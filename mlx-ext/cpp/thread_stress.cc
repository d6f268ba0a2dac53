#include "thread_stress.h"

#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mlx/mlx.h"

namespace mlx_ext {

namespace mc = mlx::core;

namespace {

constexpr int kWidth = 8;
using Values = std::vector<std::uint32_t>;

struct Node {
  mc::array value;
  Values host;
};

// One random graph on two streams of this thread; returns the mismatches.
std::uint64_t one_graph(std::mt19937& rng, const mc::Stream& s0, const mc::Stream& s1) {
  auto pick = [&rng](std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
  };
  std::vector<Node> nodes;
  for (int leaf = 0; leaf < 2; ++leaf) {
    Values v(kWidth);
    for (auto& x : v) {
      x = rng();
    }
    nodes.push_back({mc::array(v.begin(), mc::Shape{kWidth}, mc::uint32), v});
  }
  std::vector<mc::array> gathers, gather_refs;
  int n_nodes = 10 + static_cast<int>(pick(120));
  for (int k = 0; k < n_nodes; ++k) {
    auto s = pick(3) == 0 ? s1 : s0;
    // Copies: the pushes below may move the vector's elements.
    Node a = nodes[pick(nodes.size())];
    Node b = nodes[nodes.size() - 1 - pick(std::min<std::size_t>(nodes.size(), 8))];
    Values out(kWidth), rem(kWidth);
    switch (pick(4)) {
      case 0:
        for (int i = 0; i < kWidth; ++i) out[i] = a.host[i] + b.host[i];
        nodes.push_back({mc::add(a.value, b.value, s), out});
        break;
      case 1:
        for (int i = 0; i < kWidth; ++i) out[i] = a.host[i] * b.host[i];
        nodes.push_back({mc::multiply(a.value, b.value, s), out});
        break;
      case 2: {
        // A primitive with two outputs (siblings).
        auto divisor = mc::bitwise_or(b.value, mc::array(1u, mc::uint32), s);
        auto qr = mc::divmod(a.value, divisor, s);
        for (int i = 0; i < kWidth; ++i) {
          out[i] = a.host[i] / (b.host[i] | 1u);
          rem[i] = a.host[i] % (b.host[i] | 1u);
        }
        nodes.push_back({qr[0], out});
        nodes.push_back({qr[1], rem});
        break;
      }
      default: {
        // gather_mm without lhs indices (MLX builds them) against the same product with
        // arange given.
        int n = 1 + static_cast<int>(pick(40));
        auto x = mc::reshape(mc::astype(mc::arange(n * 3, s), mc::float32, s), {n, 1, 3}, s);
        auto w = mc::reshape(mc::astype(mc::arange(4 * 3 * 2, s), mc::float32, s), {4, 3, 2}, s);
        auto rhs = mc::astype(mc::remainder(mc::arange(n, s), mc::array(4), s), mc::uint32, s);
        gathers.push_back(mc::gather_mm(x, w, std::nullopt, rhs, false, s));
        gather_refs.push_back(mc::gather_mm(x, w, mc::arange(n, mc::uint32, s), rhs, false, s));
        break;
      }
    }
  }
  // Evaluate a part first, sometimes asynchronously, so the final eval meets evaluated,
  // scheduled and event-carrying inputs.
  std::vector<mc::array> first;
  for (int i = 0, n = static_cast<int>(pick(4)); i < n; ++i) {
    first.push_back(nodes[pick(nodes.size())].value);
  }
  if (!gathers.empty()) {
    first.push_back(gathers[pick(gathers.size())]);
  }
  if (pick(2) == 0) {
    mc::async_eval(first);
  } else {
    mc::eval(first);
  }
  first.clear();
  // Keep the last node and a few others; every other handle is released before the final eval,
  // so nodes are freed while graphs that read them are pending.
  std::vector<Node> kept{nodes.back()};
  for (int i = 0; i < 4; ++i) {
    kept.push_back(nodes[pick(nodes.size())]);
  }
  nodes.clear();
  std::vector<mc::array> outputs;
  for (auto& n : kept) {
    outputs.push_back(n.value);
  }
  outputs.insert(outputs.end(), gathers.begin(), gathers.end());
  outputs.insert(outputs.end(), gather_refs.begin(), gather_refs.end());
  if (pick(3) == 0) {
    mc::async_eval(outputs);
  }
  mc::eval(outputs);
  std::uint64_t mismatches = 0;
  for (auto& n : kept) {
    const auto* data = n.value.data<std::uint32_t>();
    mismatches += !std::equal(n.host.begin(), n.host.end(), data);
  }
  for (std::size_t i = 0; i < gathers.size(); ++i) {
    mismatches += !mc::array_equal(gathers[i], gather_refs[i], s0).item<bool>();
  }
  return mismatches;
}

} // namespace

std::uint64_t stress_eval_threads(std::uint32_t threads, std::uint32_t graphs, std::uint64_t seed) {
  std::vector<std::thread> workers;
  std::vector<std::uint64_t> mismatches(threads, 0);
  std::vector<std::string> errors(threads);
  for (std::uint32_t t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      // No exception may leave a std::thread: each is kept for the caller.
      try {
        auto s0 = mc::new_stream(mc::Device::cpu);
        auto s1 = mc::new_stream(mc::Device::cpu);
        std::mt19937 rng(static_cast<std::uint32_t>(seed * 1000003u + t));
        for (std::uint32_t g = 0; g < graphs; ++g) {
          mismatches[t] += one_graph(rng, s0, s1);
        }
        mc::synchronize(s0);
        mc::synchronize(s1);
      } catch (const std::exception& e) {
        errors[t] = e.what();
      }
      // A stream belongs to the thread that made it: released before the thread ends.
      try {
        mc::clear_streams();
      } catch (const std::exception& e) {
        errors[t] += std::string(errors[t].empty() ? "" : "; ") + "clear_streams: " + e.what();
      }
    });
  }
  for (auto& w : workers) {
    w.join();
  }
  std::uint64_t total = 0;
  for (std::uint32_t t = 0; t < threads; ++t) {
    if (!errors[t].empty()) {
      throw std::runtime_error("thread " + std::to_string(t) + ": " + errors[t]);
    }
    total += mismatches[t];
  }
  return total;
}

} // namespace mlx_ext
