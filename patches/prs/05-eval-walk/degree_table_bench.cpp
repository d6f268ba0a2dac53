// What the eval-walk patch's table changes in eval_impl's cost per node (reports/cpu/ops/
// eval-walk-graphs-2026-12-02.json): the degree bookkeeping of eval_impl alone, outside MLX,
// stock's std::unordered_map against the patch's DegreeTable (extracted from
// patches/0003-eval-walk.patch by ./degree-table-bench, not copied). Keys are the addresses of
// descriptor-sized heap objects made in graph order, as ArrayDesc addresses are; per node the
// walk touches the descriptor (as eval_impl reads inputs and status) and does what eval_impl
// does for a chain: in the DFS an insert of count 1, then on the tape a find, a decrement to
// zero and an erase. Prints nanoseconds per node, median of REPS walks, for each size.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <unordered_map>
#include <vector>

#include "degree_table.h"

struct Desc {
  Desc* input;
  int status;
  char rest[240]; // about an ArrayDesc with its shared_ptr control block
};

template <typename Walk>
double ns_per_node(const std::vector<std::unique_ptr<Desc>>& nodes, int reps, Walk walk) {
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto start = std::chrono::steady_clock::now();
    walk(nodes);
    t.push_back(
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start)
            .count() /
        nodes.size());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

long sink = 0;

void stock_walk(const std::vector<std::unique_ptr<Desc>>& nodes) {
  std::unordered_map<std::uintptr_t, int> cache;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    auto key = reinterpret_cast<std::uintptr_t>(it->get());
    sink += (*it)->status;
    if (auto c = cache.find(key); c == cache.end()) {
      cache.insert({key, 1});
    } else {
      c->second++;
    }
  }
  for (auto& n : nodes) {
    auto key = reinterpret_cast<std::uintptr_t>(n.get());
    sink += n->status;
    auto c = cache.find(key);
    if (--c->second == 0) {
      cache.erase(c);
    }
  }
}

void patched_walk(const std::vector<std::unique_ptr<Desc>>& nodes) {
  DegreeTable cache;
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    auto key = reinterpret_cast<std::uintptr_t>(it->get());
    sink += (*it)->status;
    if (auto [degree, inserted] = cache.try_emplace(key, 1); !inserted) {
      (*degree)++;
    }
  }
  for (auto& n : nodes) {
    auto key = reinterpret_cast<std::uintptr_t>(n.get());
    sink += n->status;
    int* degree = cache.find(key);
    if (--*degree == 0) {
      cache.erase(key);
    }
  }
}

int main(int argc, char** argv) {
  int reps = argc > 1 ? std::atoi(argv[1]) : 31;
  std::printf("nodes    stock ns/node  patched ns/node  stock/patched\n");
  for (int n : {1000, 10000, 50000, 200000}) {
    std::vector<std::unique_ptr<Desc>> nodes;
    for (int i = 0; i < n; ++i) {
      nodes.push_back(std::make_unique<Desc>());
      nodes.back()->input = i ? nodes[i - 1].get() : nullptr;
      nodes.back()->status = i & 1;
    }
    // Interleaved, so drift in the machine's speed hits both alike.
    std::vector<double> s, p;
    for (int round = 0; round < 5; ++round) {
      s.push_back(ns_per_node(nodes, reps, stock_walk));
      p.push_back(ns_per_node(nodes, reps, patched_walk));
    }
    std::sort(s.begin(), s.end());
    std::sort(p.begin(), p.end());
    std::printf("%6d   %13.1f  %15.1f  %13.3f\n", n, s[2], p[2], s[2] / p[2]);
  }
  return sink == 42 ? 1 : 0;
}
