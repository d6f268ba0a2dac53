// Can an output dropped while its kernel is still queued corrupt a leaf made right after?
// (reports/upstream/cuda-build-graph-eval-differs.md, mechanism A.) One GPU stream: a long
// product keeps the stream busy, 64 tiny outputs that depend on it are async_eval'd and
// dropped at once, and 64 host-made leaves of the same size class are made while those
// kernels are queued; after a synchronize every leaf must still hold its value. Then the
// same with 64 KiB outputs and leaves (device buffers; a fault would surface as an
// "illegal memory access" from a later CUDA call).
#include <cstdio>
#include <vector>

#include "mlx/mlx.h"

namespace mx = mlx::core;

// Corrupted leaves over `iters` rounds, outputs and leaves of `n` float32 each.
int corrupted_leaves(int iters, int n, const mx::array& big) {
  int bad = 0;
  for (int iter = 0; iter < iters; ++iter) {
    auto busy = mx::sum(mx::matmul(big, big));
    std::vector<mx::array> pending;
    for (int i = 0; i < 64; ++i) {
      pending.push_back(mx::add(mx::zeros({n}), mx::add(busy, mx::array(float(i)))));
    }
    mx::async_eval(pending);
    pending.clear();
    std::vector<mx::array> leaves;
    std::vector<float> values(n);
    for (int i = 0; i < 64; ++i) {
      std::fill(values.begin(), values.end(), -1.0f - i);
      leaves.push_back(mx::array(values.data(), {n}));
    }
    mx::synchronize();
    for (int i = 0; i < 64; ++i) {
      const float* v = leaves[i].data<float>();
      for (int j = 0; j < n; ++j) {
        if (v[j] != -1.0f - i) {
          if (bad++ < 5) {
            std::printf("  leaf corrupted: iter %d leaf %d [%d] = %g\n", iter, i, j, v[j]);
          }
          break;
        }
      }
    }
  }
  return bad;
}

int main() {
  if (!mx::gpu::is_available()) {
    std::printf("not run (this MLX has no GPU)\n");
    return 2;
  }
  mx::set_default_device(mx::Device::gpu);
  auto big = mx::random::normal({4096, 4096});
  mx::eval({big});
  int total = 0;
  for (int n : {1, 16384}) {
    int bad = corrupted_leaves(n == 1 ? 500 : 100, n, big);
    std::printf("%d-float outputs and leaves: %d corrupted leaves\n", n, bad);
    total += bad;
  }
  return total != 0;
}
