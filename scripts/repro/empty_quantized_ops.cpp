// Quantized products with no rows (and one row, as a control), on the default device: reduces
// the SIGSEGV seen on the H200 (2026-11-30) in the Rust test `empty_gather` (a sorted
// gather_qmm with no rows on the GPU), and shows the SIGFPE of quantized_matmul on the CPU.
// Without arguments it runs every case in a fresh process of its own (CUDA does not survive
// fork, and one crash must not hide the others) and prints one line per case;
// `empty_quantized_ops N` runs case N in this process (for a debugger's backtrace).
// Built and run against each arm's install by `scripts/gpu/run repro` (any backend).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "mlx/mlx.h"

namespace mx = mlx::core;

using Case = std::pair<std::string, std::function<mx::array()>>;

static mx::array experts_of(int rows) {
  std::vector<uint32_t> v(rows, 0);
  return mx::array(v.begin(), mx::Shape{rows}, mx::uint32);
}

// Two experts of [cols, 64] weights; nothing touches MLX until a case runs.
static std::vector<Case> cases() {
  std::vector<Case> all;
  // N = 8: the Rust test's shape (no qmm_sm80 tile fits); N = 128: one qmm_sm80 takes.
  for (int cols : {8, 128}) {
    for (auto dtype : {mx::float32, mx::bfloat16}) {
      auto weights = [=]() {
        auto w = mx::random::normal({2, cols, 64}, mx::float32, 0.0, 0.05, mx::random::key(1));
        return mx::astype(w, dtype);
      };
      auto tag = std::string(dtype == mx::float32 ? "float32" : "bfloat16") +
          " N=" + std::to_string(cols);
      for (int rows : {0, 1}) {
        for (bool sorted : {true, false}) {
          all.push_back(
              {"gather_qmm affine4 " + tag + " rows=" + std::to_string(rows) +
                   (sorted ? " sorted" : " unsorted"),
               [=]() {
                 auto q = mx::quantize(weights(), 64, 4);
                 return mx::gather_qmm(
                     mx::zeros({rows, 1, 64}, dtype), q[0], q[1], q[2], std::nullopt,
                     experts_of(rows), true, 64, 4, "affine", std::nullopt, sorted);
               }});
        }
      }
      all.push_back({"gather_mm " + tag + " rows=0", [=]() {
                       return mx::gather_mm(
                           mx::zeros({0, 1, 64}, dtype), mx::swapaxes(weights(), 1, 2),
                           std::nullopt, experts_of(0), true);
                     }});
      all.push_back({"quantized_matmul affine4 " + tag + " rows=0", [=]() {
                       auto q = mx::quantize(weights(), 64, 4);
                       return mx::quantized_matmul(
                           mx::zeros({0, 64}, dtype), q[0], q[1], q[2], true, 64, 4);
                     }});
    }
  }
  return all;
}

static void run(const Case& c) {
  try {
    auto y = c.second();
    mx::eval(y);
    mx::synchronize();
    std::printf("%-52s ok, shape [", c.first.c_str());
    for (int i = 0; i < y.ndim(); ++i) std::printf(i ? ", %d" : "%d", y.shape(i));
    std::printf("]\n");
  } catch (const std::exception& e) {
    std::printf("%-52s exception: %s\n", c.first.c_str(), e.what());
  }
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  auto all = cases();
  if (argc > 1) {
    size_t i = std::stoul(argv[1]);
    if (i >= all.size()) return 2;
    run(all[i]);
    return 0;
  }
  int crashes = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      auto index = std::to_string(i);
      execl("/proc/self/exe", argv[0], index.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status)) {
      std::printf("%-52s killed by signal %d (case %zu)\n", all[i].first.c_str(),
                  WTERMSIG(status), i);
      ++crashes;
    } else if (WEXITSTATUS(status) != 0) {
      std::printf("%-52s exit %d (case %zu)\n", all[i].first.c_str(), WEXITSTATUS(status), i);
      ++crashes;
    }
  }
  std::printf("%d of %zu cases crashed\n", crashes, all.size());
  return 0;
}
