# Sourced by the scripts that compile MLX's CUDA code outside its CMake build (scripts/cuda-check,
# scripts/repro/*/run): where cuda-check keeps nvcc and the dependencies, which dependency
# archives those are, and the flags MLX's CMake gives its CUDA sources, for sm_90a (with
# MLX_CUDA_SM90A, which patch 0008 has CMake define for builds with 90a code).

# cuda-check's cache (the build cache's, as mlx-build's): the toolkit, the dependencies.
cuda_check_cache=${MLX_BUILD_CACHE:-${MLX_AB_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mlx-ab}}/cuda-check
cuda_check_toolkit=$cuda_check_cache/cuda-13.0.88

# The archives (scripts/gpu/pack carries them in .gpu/deps) the CUDA sources include.
cuda_deps=(cutlass cccl fmt nvtx3 json)

# mlx_cuda_flags SRC DEPS: nvcc's arguments, one per line, for a patched MLX tree SRC and the
# dependencies unpacked in DEPS.
mlx_cuda_flags() {
  printf '%s\n' -std=c++20 -arch=sm_90a -DMLX_USE_CUDA -DMLX_CUDA_SM90A --extended-lambda --expt-relaxed-constexpr \
    -Xcompiler=-fno-strict-aliasing -diag-suppress=27,177,186,550,997,1394,2361,2908,20011,20208 \
    -I"$1" -I"$2/cutlass/include" -I"$2/cccl/include" -I"$2/fmt/include" -I"$2/nvtx3/c/include" \
    -I"$2/json/include"
}
