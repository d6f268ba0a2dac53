#include "bench_graphs.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "mlx-ext/src/ffi/bench_graphs.rs.h"
#include "mlx/mlx.h"

namespace mlx_ext {

namespace mc = mlx::core;

namespace {

constexpr int kHidden = 2048;

struct Graph {
  mc::array out;
  int nodes;
};

Graph chain(int n, const mc::array& x) {
  auto y = x;
  for (int i = 0; i < n; ++i) {
    y = mc::add(y, mc::array(1.0f));
  }
  return {y, n};
}

Graph fanin(int n, const mc::array& x) {
  std::vector<mc::array> level;
  for (int i = 0; i < n; ++i) {
    level.push_back(mc::add(x, mc::array(1.0f)));
  }
  int nodes = n;
  while (level.size() > 1) {
    std::vector<mc::array> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) {
      next.push_back(mc::add(level[i], level[i + 1]));
      ++nodes;
    }
    if (level.size() % 2) {
      next.push_back(level.back());
    }
    level = std::move(next);
  }
  return {level[0], nodes};
}

Graph multiout(int n, const mc::array& x) {
  auto y = x;
  for (int i = 0; i < n / 2; ++i) {
    auto qr = mc::divmod(mc::add(y, mc::array(7.0f)), mc::array(3.0f));
    y = mc::add(qr[0], qr[1]);
  }
  return {y, 3 * (n / 2)}; // add, divmod (one node), add
}

Graph streams(int n, const mc::array& x) {
  static const mc::Stream s[2] = {
      mc::new_stream(mc::Device::cpu), mc::new_stream(mc::Device::cpu)};
  auto y = x;
  for (int i = 0; i < n; ++i) {
    y = mc::add(y, mc::array(1.0f), s[i % 2]);
  }
  return {y, n};
}

Graph decode(
    int layers,
    const mc::array& x,
    const std::vector<mc::array>& w,
    const mc::array& gamma) {
  auto h = x;
  for (int l = 0; l < layers; ++l) {
    auto z = mc::matmul(mc::fast::rms_norm(h, gamma, 1e-6f), w[l]);
    h = mc::add(h, mc::multiply(z, mc::sigmoid(z)));
  }
  return {h, 5 * layers};
}

// The outputs, each flattened, joined into one array (in their order).
std::unique_ptr<mc::array> joined(const std::vector<mc::array>& outputs) {
  std::vector<mc::array> flat;
  for (const auto& a : outputs) {
    flat.push_back(mc::flatten(a));
  }
  return std::make_unique<mc::array>(mc::concatenate(flat));
}

// Runs `step` `reps` times; `step` returns the seconds it measured and the arrays it made.
BenchTiming timed(
    std::uint32_t reps,
    const std::function<std::pair<double, std::vector<mc::array>>()>& step) {
  std::vector<double> seconds;
  std::size_t peak = 0;
  std::unique_ptr<mc::array> first;
  for (std::uint32_t r = 0; r < std::max(reps, 1u); ++r) {
    std::size_t before = mc::get_active_memory();
    mc::reset_peak_memory();
    auto [s, outputs] = step();
    seconds.push_back(s);
    peak = std::max(peak, mc::get_peak_memory() - before);
    if (r == 0) {
      first = joined(outputs);
    }
  }
  std::sort(seconds.begin(), seconds.end());
  return BenchTiming{seconds[seconds.size() / 2], peak, std::move(first)};
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

BenchTiming eval_graph_bench(rust::Str shape_name, std::uint32_t nodes, std::uint32_t reps) {
  std::string shape(shape_name);
  int n = static_cast<int>(nodes);
  mc::StreamContext on_cpu(mc::default_stream(mc::Device::cpu));
  bool dense = shape == "decode";
  auto x = dense ? mc::random::normal({1, kHidden}, mc::float32, 0.0f, 1.0f, mc::random::key(1))
                 : mc::array(0.5f);
  auto gamma = mc::ones({kHidden});
  std::vector<mc::array> w;
  for (int l = 0; dense && l < n; ++l) {
    w.push_back(mc::random::normal(
        {kHidden, kHidden}, mc::float32, 0.0f, 0.02f, mc::random::key(2 + l)));
  }
  mc::eval({x, gamma});
  mc::eval(w);
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
    throw std::invalid_argument(
        "unknown graph shape " + shape + " (chain, fanin, multiout, streams, decode)");
  }
  return timed(reps, [&] {
    auto start = std::chrono::steady_clock::now();
    auto g = build();
    mc::eval({g.out});
    return std::pair{since(start) / g.nodes, std::vector{g.out}};
  });
}

BenchTiming causal_sdpa_train_step_bench(
    std::uint32_t heads,
    std::uint32_t len,
    std::uint32_t head_dim,
    std::uint32_t reps,
    bool array_mask) {
  mc::StreamContext on_cpu(mc::default_stream(mc::Device::cpu));
  int h = static_cast<int>(heads), l = static_cast<int>(len), d = static_cast<int>(head_dim);
  auto ks = mc::random::split(mc::random::key(1), 3);
  auto q = mc::random::normal({1, h, l, d}, mc::float32, 0.0f, 1.0f, mc::take(ks, 0, 0));
  auto k = mc::random::normal({1, h, l, d}, mc::float32, 0.0f, 1.0f, mc::take(ks, 1, 0));
  auto v = mc::random::normal({1, h, l, d}, mc::float32, 0.0f, 1.0f, mc::take(ks, 2, 0));
  mc::eval({q, k, v});
  float scale = 1.0f / std::sqrt(static_cast<float>(d));
  auto mask = mc::greater_equal(
      mc::expand_dims(mc::arange(0, l), 1), mc::expand_dims(mc::arange(0, l), 0));
  auto loss = [&](const std::vector<mc::array>& in) {
    auto o = array_mask
        ? mc::fast::scaled_dot_product_attention(in[0], in[1], in[2], scale, "array", mask)
        : mc::fast::scaled_dot_product_attention(in[0], in[1], in[2], scale, "causal");
    return std::vector<mc::array>{mc::sum(mc::square(o))};
  };
  return timed(reps, [&] {
    auto start = std::chrono::steady_clock::now();
    auto [value, grads] = mc::vjp(loss, {q, k, v}, {mc::array(1.0f)});
    auto all = grads;
    all.push_back(value[0]);
    mc::eval(all);
    return std::pair{since(start), grads};
  });
}

} // namespace mlx_ext
