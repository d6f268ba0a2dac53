// Is MLX's bf16 decode attention repeatable outside a model? One query over a slice of a
// fixed-size KV cache (the shape qwen3-30b-a3b decodes with: 32 query heads, 4 KV heads, head
// dim 128, 2,052 of 2,304 cached keys), evaluated CALLS times on the same bits, each output
// compared bit for bit with the first. The arms of
// reports/upstream/cuda-sdpa-decode-nondeterminism.md's experiment that need no patch, each in
// a fresh process (MLX reads MLX_CUDA_USE_CUDNN_SDPA once per process):
//   A  as is (the slices take cuDNN's decode path)
//   B  MLX_CUDA_USE_CUDNN_SDPA=0 (MLX's vector kernel)
//   E  contiguous copies of the slices (not slices of a buffer: the vector kernel, no switch)
//   A2 as A, with another process doing the same beside it
//   F  as decoding calls it: the slice grows one key per call (2,049 to 2,304 keys, one cached
//      cuDNN graph, seq_len changing), four passes, each call against the same length's call
//      of the first pass
// Without arguments it runs every arm (re-executing itself) and prints one line per arm.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mlx/mlx.h"

namespace mx = mlx::core;

// The KV cache buffers [1, 4, 2304, 128] and one query [1, 32, 1, 128], bf16, evaluated on
// the GPU.
struct Inputs {
  mx::array k_cache, v_cache, q;
};

Inputs make_inputs() {
  mx::set_default_device(mx::Device::gpu);
  auto keys = mx::random::split(mx::random::key(7), 3);
  auto normal = [&](mx::Shape shape, int i) {
    return mx::random::normal(shape, mx::bfloat16, 0.0, 1.0, mx::take(keys, i, 0));
  };
  Inputs in{
      normal({1, 4, 2304, 128}, 0), normal({1, 4, 2304, 128}, 1), normal({1, 32, 1, 128}, 2)};
  mx::eval({in.k_cache, in.v_cache, in.q});
  return in;
}

int run_arm(const std::string& arm, int calls) {
  if (!mx::gpu::is_available()) {
    std::printf("arm %s: not run (this MLX has no GPU)\n", arm.c_str());
    return 2;
  }
  auto [k_cache, v_cache, q] = make_inputs();
  auto k = mx::slice(k_cache, {0, 0, 0, 0}, {1, 4, 2052, 128});
  auto v = mx::slice(v_cache, {0, 0, 0, 0}, {1, 4, 2052, 128});
  if (arm == "E") {
    k = mx::contiguous(k);
    v = mx::contiguous(v);
  }
  mx::eval({k, v});
  const float scale = 1.0f / std::sqrt(128.0f);
  std::vector<uint16_t> first;
  int differ = 0, first_call = -1, first_index = -1;
  size_t elements_differing = 0;
  for (int c = 0; c < calls; ++c) {
    auto o = mx::fast::scaled_dot_product_attention(q, k, v, scale, "");
    o.eval();
    mx::synchronize();
    const uint16_t* bits = reinterpret_cast<const uint16_t*>(o.data<mx::bfloat16_t>());
    if (first.empty()) {
      first.assign(bits, bits + o.size());
      continue;
    }
    size_t n = 0;
    for (size_t i = 0; i < first.size(); ++i) {
      if (bits[i] != first[i]) {
        if (first_call < 0) {
          first_call = c;
          first_index = static_cast<int>(i);
        }
        ++n;
      }
    }
    differ += n > 0;
    elements_differing += n;
  }
  std::printf(
      "arm %s: %d of %d calls differ from the first (%zu elements in all; first at call %d, "
      "element %d of %zu)\n",
      arm.c_str(), differ, calls - 1, elements_differing, first_call, first_index,
      first.size());
  return differ > 0 ? 1 : 0;
}

int run_growing(int passes) {
  auto [k_cache, v_cache, q] = make_inputs();
  const float scale = 1.0f / std::sqrt(128.0f);
  std::vector<std::vector<uint16_t>> first;
  int differ = 0, calls = 0, first_pass = -1, first_len = -1;
  for (int pass = 0; pass < passes; ++pass) {
    for (int len = 2049; len <= 2304; ++len) {
      auto k = mx::slice(k_cache, {0, 0, 0, 0}, {1, 4, len, 128});
      auto v = mx::slice(v_cache, {0, 0, 0, 0}, {1, 4, len, 128});
      mx::eval({k, v});
      auto o = mx::fast::scaled_dot_product_attention(q, k, v, scale, "");
      o.eval();
      auto bits = reinterpret_cast<const uint16_t*>(o.data<mx::bfloat16_t>());
      std::vector<uint16_t> now(bits, bits + o.size());
      if (pass == 0) {
        first.push_back(std::move(now));
        continue;
      }
      ++calls;
      if (now != first[len - 2049]) {
        ++differ;
        if (first_pass < 0) {
          first_pass = pass;
          first_len = len;
        }
      }
    }
  }
  std::printf(
      "arm F: %d of %d calls differ from the first pass's call of the same length (first: "
      "pass %d, %d keys)\n",
      differ, calls, first_pass, first_len);
  return differ > 0 ? 1 : 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "F") {
    return mx::gpu::is_available() ? run_growing(4) : 2;
  }
  if (argc > 1) {
    return run_arm(argv[1], argc > 2 ? std::atoi(argv[2]) : 1000);
  }
  std::string self = "/proc/self/exe";
  char path[4096];
  ssize_t len = readlink(self.c_str(), path, sizeof(path) - 1);
  if (len <= 0) {
    std::perror("readlink");
    return 2;
  }
  path[len] = 0;
  std::string exe = path;
  const std::vector<std::string> commands = {
      exe + " A",
      "MLX_CUDA_USE_CUDNN_SDPA=0 " + exe + " B",
      exe + " E",
      "(" + exe + " A & " + exe + " A2; wait)",
      exe + " F",
  };
  for (auto& c : commands) {
    std::fflush(stdout);
    if (std::system(c.c_str()) == -1) {
      std::perror("system");
      return 2;
    }
  }
  // The engine cuDNN picked, from its frontend's log of one call.
  std::string logged = "CUDNN_FRONTEND_LOG_INFO=1 CUDNN_FRONTEND_LOG_FILE=stderr " + exe +
      " A 3 2>&1 >/dev/null | grep -iE 'cudnn.*version|engine|UNIFIED|COMPOSITE|note' | sort | uniq -c | head -n 20";
  std::fflush(stdout);
  return std::system(logged.c_str()) == -1 ? 2 : 0;
}
