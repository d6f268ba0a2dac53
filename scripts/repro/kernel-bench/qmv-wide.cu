// A decode candidate for issue 26 (item 2: sorted gather_qmm at 1-8 rows per
// expert at >= 2.4 TB/s of the bytes a call must move), alone, without an MLX
// build, against the series' kernels at the same calls: the per-row
// qmm_sm80_kernel (what the series runs under 4 rows per expert) and 0004's
// rhs kernel. Not an MLX patch yet: this bench says first whether the kernel
// reaches the goal.
//
// Why the experiment before it (gather-qmv-sorted.patch, 1.00 TB/s at best on
// an H100, 2026-12-05) fell short, by estimate: a 4-bit weight read at 2.4 TB/s
// leaves an H100 about 4 instructions of each kind per weight, and it spent an
// int-to-float conversion (a quarter-rate instruction) and a scale-and-bias
// multiply-add on each. Here, per weight: a shift and one LOP3 put its nibble
// into the mantissa of 128.0f (float(128 + q), exact, no conversion), and one
// FFMA per row multiplies it with x. Scale and bias come in once per 16 weights
// through the sum of x over them: sum x * (s * q + b) = s * (sum x * (128 + q)
// - 128 * sum x) + b * sum x.
//
// A block takes one expert (its rows found by binary search in the sorted
// indices: the host reads no counts) and 8 warps of Features output features;
// a lane takes 16 consecutive values of K per step (8 bytes of weights per
// feature, all Features loads issued before the arithmetic) and the warp 512,
// so x is read once per step and used for every feature. Rows go Rows at a
// time; more rows read the block's weights again (from L2). Outputs: float32
// sums in another order than the series' kernels, so not bit-identical; the
// harness checks them against float32 (max_error_over_rms).

#include "common.cuh"
#include "harness.cuh"

#include <cuda_bf16.h>

namespace {

constexpr int kWarps = 8;

// float(128 + q) for the 4-bit q at nibble I of word: q's bits become mantissa
// bits 16-19 of 128.0f (one ulp there is 1).
template <int I>
__device__ __forceinline__ float q_plus_128(uint32_t word) {
  uint32_t at16;
  if constexpr (I < 4) {
    at16 = word << (16 - 4 * I);
  } else {
    at16 = word >> (4 * I - 16);
  }
  return __uint_as_float((at16 & 0x000F0000u) | 0x43000000u);
}

// float(128 + q) for the 8 nibbles of word (MLX's packing: the element of
// lower k in the lower nibble).
__device__ __forceinline__ void unpack8(uint32_t word, float* v) {
  v[0] = q_plus_128<0>(word);
  v[1] = q_plus_128<1>(word);
  v[2] = q_plus_128<2>(word);
  v[3] = q_plus_128<3>(word);
  v[4] = q_plus_128<4>(word);
  v[5] = q_plus_128<5>(word);
  v[6] = q_plus_128<6>(word);
  v[7] = q_plus_128<7>(word);
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset; offset /= 2) {
    v += __shfl_xor_sync(0xffffffffu, v, offset);
  }
  return v;
}

// The first index of sorted[0, count) not below value.
__device__ int lower_bound(const uint32_t* sorted, int count, uint32_t value) {
  int lo = 0, hi = count;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (sorted[mid] < value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

template <int Features, int Rows>
__global__ void __launch_bounds__(kWarps * 32) qmv_wide_kernel(
    const Bf16* x,
    const uint8_t* w,
    const Bf16* scales,
    const Bf16* biases,
    Bf16* out,
    const uint32_t* lhs,
    const uint32_t* rhs,
    int n,
    int k,
    int rows) {
  int e = blockIdx.y;
  int begin = lower_bound(rhs, rows, e);
  int end = lower_bound(rhs, rows, e + 1);
  int lane = threadIdx.x % 32;
  int j0 = (blockIdx.x * kWarps + threadIdx.x / 32) * Features;
  if (begin == end || j0 >= n) {
    return;
  }
  int groups = k / kGroupSize;
  size_t first_row = size_t(e) * n + j0; // of the weights, scales and biases
  for (int r = begin; r < end; r += Rows) {
    int here = min(Rows, end - r);
    float acc[Features][Rows] = {};
    for (int k0 = lane * 16; k0 < k; k0 += 32 * 16) {
      uint2 q[Features];
      float s[Features], b[Features];
#pragma unroll
      for (int f = 0; f < Features; ++f) {
        size_t row = first_row + f;
        q[f] = *reinterpret_cast<const uint2*>(w + (row * k + k0) / 2);
        s[f] = __bfloat162float(scales[row * groups + k0 / kGroupSize]);
        b[f] = __bfloat162float(biases[row * groups + k0 / kGroupSize]);
      }
      float xs[Rows][16], sum_x[Rows];
#pragma unroll
      for (int i = 0; i < Rows; ++i) {
        sum_x[i] = 0;
        if (i < here) {
          auto* p = reinterpret_cast<const uint4*>(x + size_t(lhs[r + i]) * k + k0);
          uint4 lo = p[0], hi = p[1];
          uint32_t pairs[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
#pragma unroll
          for (int v = 0; v < 8; ++v) {
            xs[i][2 * v] = __uint_as_float(pairs[v] << 16);
            xs[i][2 * v + 1] = __uint_as_float(pairs[v] & 0xFFFF0000u);
            sum_x[i] += xs[i][2 * v] + xs[i][2 * v + 1];
          }
        }
      }
#pragma unroll
      for (int f = 0; f < Features; ++f) {
        float v[16]; // unpacked once, used by every row
        unpack8(q[f].x, v);
        unpack8(q[f].y, v + 8);
#pragma unroll
        for (int i = 0; i < Rows; ++i) {
          if (i < here) {
            float d = 0;
#pragma unroll
            for (int t = 0; t < 16; ++t) {
              d = fmaf(xs[i][t], v[t], d);
            }
            acc[f][i] += s[f] * (d - 128.0f * sum_x[i]) + b[f] * sum_x[i];
          }
        }
      }
    }
#pragma unroll
    for (int f = 0; f < Features; ++f) {
#pragma unroll
      for (int i = 0; i < Rows; ++i) {
        float v = warp_sum(acc[f][i]);
        if (lane == 0 && i < here && j0 + f < n) {
          out[size_t(r + i) * n + j0 + f] = Bf16(v);
        }
      }
    }
  }
}

template <int Features, int Rows>
Kernel qmv_wide(const Problem& p, const Operands& o) {
  // A warp's loads take Features whole rows of weights.
  if (p.n % Features) {
    std::fprintf(stderr, "qmv-wide: N %d not a multiple of %d\n", p.n, Features);
    std::exit(1);
  }
  dim3 blocks((p.n + kWarps * Features - 1) / (kWarps * Features), p.experts);
  return {[=] {
    qmv_wide_kernel<Features, Rows><<<blocks, kWarps * 32>>>(
        static_cast<const Bf16*>(o.x),
        o.w,
        static_cast<const Bf16*>(o.scales),
        static_cast<const Bf16*>(o.biases),
        static_cast<Bf16*>(o.out),
        o.lhs,
        o.rhs,
        p.n,
        p.k,
        p.rows());
  }};
}

} // namespace

int main() {
  // Qwen3-30B-A3B's expert projections: up (K 2048, N 768) and down.
  for (auto [k, n] : {std::pair{2048, 768}, std::pair{768, 2048}}) {
    for (int rows : {1, 2, 4, 8}) {
      std::vector<Entry> entries{
          {"series-rhs", series::rhs},
          {"qmv-wide-f8-r2", qmv_wide<8, 2>},
          {"qmv-wide-f4-r2", qmv_wide<4, 2>},
          {"qmv-wide-f8-r4", qmv_wide<8, 4>}};
      // Under 4 rows per expert the series keeps the per-row path (0004's
      // threshold): the baseline there.
      if (rows < 4) {
        entries.insert(entries.begin(), {"series-per-row", series::per_row});
      }
      compare({128, rows, k, n}, entries);
    }
  }
}
