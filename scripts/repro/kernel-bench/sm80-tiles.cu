// The series' own sm80 kernels over MoE checkpoints' expert shapes, for a
// dispatch that sees the grid (issue 26, decode): the per-row kernel (what the
// series runs under 4 rows per expert) against 0004's rhs kernel at 128- and
// 64-feature tiles, at 2-8 rows per expert. 0004 takes the rhs kernel from 4
// rows per expert whatever the shape, but its grid, ceil(rows / 16) x
// ceil(N / tile) blocks at these rows, depends on N: on the H200 at 2 rows it
// was 1.51x the per-row kernel with N 2048 and 0.83x with N 768 (96 blocks on
// 132 SMs), and at 4 rows a 64-feature tile took it 1.18x further with N 768
// (reports/h200/kernel-bench-h200-2026-12-05-408a377/). Then a decode step's
// unsorted products (a token's top-8 experts, one row each, stock's per-row
// path at 8 rows and more): 8 rows of Qwen3-30B-A3B's up projection make 48
// blocks of 128 features on 132 SMs, so a 64-feature tile may pay there where
// it lost with 128 experts' rows (0.84-0.87x). This sweep is what a rule by
// rows and grid is to be read from, not guessed. The kernels sum each output
// over K in the same order: values_differing_from_first must be 0.

#include "common.cuh"
#include "harness.cuh"

int main() {
  for (const MoeShape& m : kMoeShapes) {
    for (bool up : {true, false}) {
      int k = m.k(up), n = m.n(up);
      for (int rows : {2, 3, 4, 8}) {
        std::printf(
            "# %s %s: experts=%d rows_per_expert=%d k=%d n=%d\n",
            m.name,
            up ? "up" : "down",
            m.experts,
            rows,
            k,
            n);
        compare(
            {m.experts, rows, k, n},
            {{"per-row", series::per_row},
             {"rhs", series::rhs},
             {"rhs-n64", series::rhs_n64}});
      }
    }
  }
  // Decode: 1, 2 and 4 tokens' top-8 rows, each row its own expert.
  for (const MoeShape& m : {kMoeShapes[0], kMoeShapes[1]}) {
    for (bool up : {true, false}) {
      int k = m.k(up), n = m.n(up);
      for (int tokens : {1, 2, 4}) {
        std::printf(
            "# %s %s, decode: tokens=%d rows=%d k=%d n=%d\n",
            m.name,
            up ? "up" : "down",
            tokens,
            8 * tokens,
            k,
            n);
        compare(
            {8 * tokens, 1, k, n},
            {{"per-row", series::per_row},
             {"per-row-n64", series::per_row_n64}});
      }
    }
  }
}
