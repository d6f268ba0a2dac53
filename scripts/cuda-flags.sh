# Sourced by the scripts that compile MLX's CUDA code on a machine without a CUDA install
# (scripts/cuda-check, scripts/repro/*/run, scripts/gpu/prebuild): the toolkit they fetch and
# where, the dependencies unpacked, and the flags MLX's CMake gives its CUDA sources, for sm_90a
# (with MLX_CUDA_SM90A, which patch 0008 has CMake define for builds with 90a code).

# cuda-check's cache (in mlx-build's build cache): the toolkit, the dependencies.
cuda_check_cache=$("$(dirname "${BASH_SOURCE[0]}")/mlx-build" cache-root)/cuda-check
cuda_wheels_dir=$cuda_check_cache/wheels
cuda_check_toolkit=$cuda_wheels_dir/cu13

# A CUDA 13.0 toolkit without an install: NVIDIA's wheels on PyPI, at the GPU machine's release.
# The compiler (nvcc, its front and back end, the runtime's headers); the libraries MLX links
# (scripts/gpu/prebuild; cuDNN 9, whose libmlx names libcudnn.so.9 as any 9 does).
cuda_compiler_wheels=(nvidia-cuda-nvcc==13.0.88 nvidia-cuda-crt==13.0.88 nvidia-nvvm==13.0.88
  nvidia-cuda-runtime==13.0.96)
cuda_library_wheels=(nvidia-cuda-cccl==13.0.85 nvidia-cublas==13.0.2.14 nvidia-cufft==12.0.0.61
  nvidia-cusolver==12.0.9.81 nvidia-cuda-nvrtc==13.0.88 nvidia-cudnn-cu13==9.28.1.4)

# cuda_wheels SPEC...: each wheel not fetched yet, downloaded (no dependencies) and merged into
# $cuda_wheels_dir: cu13/ (bin, include, lib: the toolkit) and cudnn/. Libraries get the
# unversioned names a linker looks for; the toolkit gets lib64 -> lib, where nvcc.profile links
# from (cudadevrt, cudart_static: CMake's compiler check; a fresh cache failed there, 2026-12-07).
cuda_wheels() {
  local spec todo=()
  for spec in "$@"; do [[ -f $cuda_wheels_dir/.got/$spec ]] || todo+=("$spec"); done
  ((${#todo[@]} == 0)) || cuda_wheels_fetch "${todo[@]}" || return 2
  [[ ! -d $cuda_check_toolkit/lib || -e $cuda_check_toolkit/lib64 ]] || ln -s lib "$cuda_check_toolkit/lib64"
}
cuda_wheels_fetch() { # SPEC...
  local spec tmp w f
  python3 -m pip --version > /dev/null 2>&1 ||
    { echo "needs pip to fetch CUDA's wheels (Debian: apt install python3-pip)" >&2; return 2; }
  tmp=$(mktemp -d)
  python3 -m pip download --no-deps -q -d "$tmp" "$@" || { rm -rf "$tmp"; return 2; }
  for w in "$tmp"/*.whl; do python3 -m zipfile -e "$w" "$tmp/x" || { rm -rf "$tmp"; return 2; }; done
  mkdir -p "$cuda_wheels_dir/.got" && cp -a "$tmp/x/nvidia/." "$cuda_wheels_dir/" || { rm -rf "$tmp"; return 2; }
  rm -rf "$tmp"
  chmod -R u+x "$cuda_wheels_dir"/cu13/bin "$cuda_wheels_dir"/cu13/nvvm/bin 2>/dev/null || true
  for f in "$cuda_wheels_dir"/*/lib/*.so.*; do
    [[ -e $f && ! -e ${f%%.so.*}.so ]] && ln -s "$(basename "$f")" "${f%%.so.*}.so"
  done
  for spec in "$@"; do touch "$cuda_wheels_dir/.got/$spec"; done
}

# cuda_unpack_deps ARCHIVES DEST: every dependency archive of ARCHIVES (*.tar.xz: those
# scripts/gpu/pack carries in .gpu/deps) unpacked into DEST, again when they change.
cuda_unpack_deps() {
  local stamp f
  compgen -G "$1/*.tar.xz" > /dev/null ||
    { echo "no dependency archives in $1 (set MLX_CUDA_DEPS_ARCHIVES)" >&2; return 2; }
  stamp=$(cat "$1"/*.tar.xz | sha256sum | cut -c1-16)
  [[ -f $2/$stamp ]] && return 0
  rm -rf "$2" && mkdir -p "$2"
  for f in "$1"/*.tar.xz; do tar -xmJf "$f" -C "$2" || return 2; done
  touch "$2/$stamp"
}

# mlx_cuda_flags SRC DEPS: nvcc's arguments, one per line, for a patched MLX tree SRC and the
# dependencies unpacked in DEPS.
mlx_cuda_flags() {
  printf '%s\n' -std=c++20 -arch=sm_90a -DMLX_USE_CUDA -DMLX_CUDA_SM90A --extended-lambda --expt-relaxed-constexpr \
    -Xcompiler=-fno-strict-aliasing -diag-suppress=27,177,186,550,997,1394,2361,2908,20011,20208 \
    -I"$1" -I"$2/cutlass/include" -I"$2/cccl/include" -I"$2/fmt/include" -I"$2/nvtx3/c/include" \
    -I"$2/json/include"
}
