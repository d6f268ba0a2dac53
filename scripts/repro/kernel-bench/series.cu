// The series' kernels at the benches' calls, launched as qmm_sm80.cu launches
// them (grid, block, shared memory, arguments). MLX compiles them at run time
// with NVRTC; here nvcc compiles the same source (device/qmm_sm80.cuh).

#include "common.cuh"

#include "mlx/backend/cuda/device/qmm_sm80.cuh"

namespace {

using Element = cutlass::bfloat16_t;
using Quant = cutlass::uint4b_t;

template <int TileM, int TileN = 128>
using Tiler = cute::Shape<cute::Int<TileM>, cute::Int<TileN>, cute::_64>;

// qmm_sm80.cu's shared memory size for a tile.
template <int TileM, int TileN>
size_t smem_bytes() {
  auto [sA, sB, sC] = mlx::core::cu::make_smem_layouts(Tiler<TileM, TileN>{});
  return std::max(
      cute::cosize(sA) * sizeof(Element) + cute::cosize(sB) * 4 / 8,
      cute::cosize(sC) * sizeof(Element));
}

template <typename F>
void allow_smem(F kernel, size_t bytes) {
  if (bytes > 48000) {
    CHECK(cudaFuncSetAttribute(
        kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
  }
}

int threads() {
  return int(cute::size(mlx::core::cu::make_tiled_mma()));
}

// A kernel of qmm_sm80.cuh at a tile of TileM x TileN over `blocks`: its
// operands (x, w, scales, biases), then `args`.
template <int TileM, int TileN = 128, typename K, typename... Args>
Kernel launch(K kernel, dim3 blocks, const Operands& o, Args... args) {
  size_t smem = smem_bytes<TileM, TileN>();
  allow_smem(kernel, smem);
  return {[=] {
    kernel<<<blocks, threads(), smem>>>(
        static_cast<const Element*>(o.x),
        reinterpret_cast<const Quant*>(o.w),
        static_cast<const Element*>(o.scales),
        static_cast<const Element*>(o.biases),
        args...);
  }};
}

// One row per matrix (m = 1, l = rows): qmm_sm80's tile of 16 rows, of TileN
// features (qmm_sm80.cu's 128; 64 doubles the blocks, a candidate for decode,
// whose 128-feature grid runs 1.45 waves of blocks on the H200).
template <int TileN>
Kernel per_row_at(const Problem& p, const Operands& o) {
  return launch<16, TileN>(
      mlx::core::cu::qmm_sm80_kernel<
          kGroupSize,
          Element,
          Quant,
          Element,
          Tiler<16, TileN>>,
      dim3(1, (p.n + TileN - 1) / TileN, p.rows()),
      o,
      o.lhs,
      o.rhs,
      static_cast<Element*>(o.out),
      1,
      p.n,
      p.k,
      p.rows(),
      false);
}

// All rows one matrix, experts found in the sorted rhs indices: 0004's
// kernel, at the tile 0006 sizes from rows per expert (16 to 64), of TileN
// features (qmm_sm80.cu's 128; 64 doubles the blocks where few rows per expert
// leave few row tiles).
template <int TileM, int TileN = 128>
Kernel rhs_at_tile(const Problem& p, const Operands& o) {
  return launch<TileM, TileN>(
      mlx::core::cu::qmm_sm80_rhs_kernel<
          kGroupSize,
          Element,
          Quant,
          Element,
          Tiler<TileM, TileN>>,
      dim3((p.rows() + TileM - 1) / TileM, (p.n + TileN - 1) / TileN, 1),
      o,
      o.rhs,
      static_cast<Element*>(o.out),
      p.rows(),
      p.n,
      p.k,
      p.experts);
}

} // namespace

// The entry points, each bench's baseline (common.cuh); with ./run's
// renaming, a variant's. Everything above is internal to this compilation,
// so a variant's templates never merge with the series' at link time (nm,
// 2026-12-05: the two objects share only Kernel's default release).
Kernel series::per_row(const Problem& p, const Operands& o) {
  return per_row_at<128>(p, o);
}

Kernel series::per_row_n64(const Problem& p, const Operands& o) {
  return per_row_at<64>(p, o);
}

// At the 16-row tile only: the few-rows case a 64-feature tile is for.
Kernel series::rhs_n64(const Problem& p, const Operands& o) {
  return rhs_at_tile<16, 64>(p, o);
}

Kernel series::rhs(const Problem& p, const Operands& o) {
  if (p.rows_per_expert <= 16) {
    return rhs_at_tile<16>(p, o);
  }
  if (p.rows_per_expert <= 32) {
    return rhs_at_tile<32>(p, o);
  }
  return rhs_at_tile<64>(p, o);
}
