#!/usr/bin/env bash
# Sourced by scripts/gpu/run and plan-next: MLX's JIT-compiled kernels carried from one GPU
# machine to the next. Each arm's folder under <cache root>/ptx is named by the digest of its
# binaries (rust/mlx-ab/src/ptx_cache.rs), so an arm takes only what the same bytes compiled,
# and a fresh machine skips the minutes `warm` spends compiling (about 140 s for qwen3-30b-a3b).

# mlx-ab's cache root, as its Rust code finds it (MLX_BUILD_CACHE, ...).
ptx_cache_root() { "$(dirname "${BASH_SOURCE[0]}")/../mlx-build" cache-root; }

# Every arm's kernels as ARCHIVE (xz); nothing written where none were compiled.
ptx_cache_pack() { # ARCHIVE
  local root
  root=$(ptx_cache_root) || return 2
  [[ -d $root/ptx ]] || return 0
  tar -C "$root" --exclude='.from-*' -cf - ptx | xz -T0 -6 > "$1.part" && mv "$1.part" "$1"
}

# ARCHIVE's kernels into the cache, once per archive (a marker names its digest); files
# already there are kept (a held machine's own compiles win).
ptx_cache_unpack() { # ARCHIVE
  local root sum
  root=$(ptx_cache_root) || return 2
  sum=$(sha256sum < "$1" | cut -c1-16)
  [[ -f $root/ptx/.from-$sum ]] && return 0
  mkdir -p "$root" && tar -xJf "$1" -C "$root" --skip-old-files && touch "$root/ptx/.from-$sum"
}
