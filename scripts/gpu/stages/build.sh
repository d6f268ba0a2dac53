#!/usr/bin/env bash
# Sourced by scripts/gpu/run: build-ARM, an arm's MLX by `mlx-build build` (the code of
# mlx-sys's build script). BUILD_SUITE [1] (0: libmlx only, no MLX C++ suite), ARCH [90a],
# EXTRA_PATCH="FILE..." (ARM is stock MLX with those patches, or with EXTRA_BASE=all the series
# with them: an experiment for the repro stage and for mlx-ab). With BUILD_SUITE=0, an arm
# scripts/gpu/prebuild built on the CPU machine (.gpu/built) is unpacked instead.

# Pristine source and dependency sources, unpacked once.
unpack() {
  [[ -f $WORK/done/unpack ]] && return
  rm -rf "$WORK/pristine" "$WORK/deps" && mkdir -p "$WORK/pristine" "$WORK/deps"
  tar -xmJf "$PACK/mlx-src.tar.xz" -C "$WORK/pristine" || die "unpacking MLX"
  for f in "$PACK"/deps/*.tar.xz; do tar -xmJf "$f" -C "$WORK/deps" || die "unpacking $f"; done
  touch "$WORK/done/unpack"
}

# An arm's MLX, built by mlx-build (the code of mlx-sys's build script) in one tree shared by
# the arms (each arm after the first rebuilds only what its patches change; a build stopped by
# the budget continues there) and installed into $WORK/arms/ARM beside its Rust binaries.
# With EXTRA_PATCH="FILE...", ARM is stock MLX (EXTRA_BASE=all: the series) with them (an
# experiment, for the repro stage and for mlx-ab runs): its Rust binaries are those of its base
# arm, which reach MLX only through the arm's own libmlx.so ($ORIGIN/../lib), so an experiment
# that keeps MLX's public headers (an allocator change, a dispatch rule) runs in them as it is.
build_arm() {
  local arm=$1 patch_args bin_arm=$1
  mapfile -t patch_args < <(arm_patch_args "$arm")
  [[ -n ${EXTRA_PATCH:-} ]] && bin_arm=$([[ ${EXTRA_BASE:-none} == all ]] && echo patched || echo stock)
  [[ -d $PACK/arms/$arm || -n ${EXTRA_PATCH:-} ]] || die "no packed arm $arm (on the CPU machine: ARMS=$arm scripts/gpu/pack)"
  { [[ ${BUILD_SUITE:-1} == 0 ]] && unpack_prebuilt "$arm" "${patch_args[@]}"; } || compile_arm "$arm" "${patch_args[@]}"
  say "build $arm: installed $(du -sh "$WORK/arms/$arm/lib" | cut -f1) in lib/, libmlx.so $(du -h "$WORK/arms/$arm/lib/libmlx.so" 2>/dev/null | cut -f1)"
  echo "$bin_arm" > "$WORK/arms/$arm/bin-arm"
  give_binaries "$WORK/arms/$arm"
}

compile_arm() { # ARM PATCH_ARGS...
  local arm=$1 t
  shift
  unpack
  t=$(($(left) - 30))
  local args=("$@" --source "$WORK/pristine" --tree "$WORK/tree" --prefix "$WORK/arms/$arm")
  ((t > 30)) || { say "build $arm: no time left in this call; call again"; exit 3; }
  [[ ${BUILD_SUITE:-1} == 1 ]] && args+=(--cpp-suite)
  [[ $BACKEND == cuda ]] && args+=(--cuda --arch "${ARCH:-90a}") || args+=(--shared)
  say "build $arm: mlx-build build ${args[*]}, at most ${t}s"
  CUDNN_ROOT=$CUDNN_ROOT MLX_CUDA_DEPS_DIR=$WORK/deps CMAKE_GENERATOR=Ninja NUM_JOBS=$JOBS \
    timeout "$t" "$PACK/tools/mlx-build" build "${args[@]}" > "$LOGS/build-$arm.log" 2>&1
  local rc=$?
  ((rc == 124)) && { say "build $arm: stopped by the budget; call again"; exit 3; }
  ((rc == 0)) || { tail -n 60 "$LOGS/build-$arm.log"; die "build $arm failed (build-$arm.log)"; }
  say "build $arm: $(grep -E 'changed in|built MLX' "$LOGS/build-$arm.log" | paste -sd';'); ccache: $(ccache -s 2>/dev/null | grep -iE '^ *(hits|misses)' | tr -s ' ' | paste -sd';')"
}

# ARM as scripts/gpu/prebuild built it on the CPU machine (.gpu/built/arms.tar.xz: the same
# mlx-build build for sm_90a, without MLX's suite), unpacked in a few seconds instead of built,
# where its SERIES (the sha256 of each patch it applied) is what these PATCH_ARGS apply. Not
# for BUILD_SUITE=1, another ARCH than 90a, or the CPU backend (it holds a CUDA build). The
# pinned MLX source and mlx-build's flags are not checked: a change to either wants a new
# prebuild (reports/h200/README.md says when).
unpack_prebuilt() { # ARM PATCH_ARGS...
  local arm=$1 archive=$PACK/built/arms.tar.xz want have ldd_out
  shift
  [[ -f $archive && -f $PACK/built/$arm.txt && $BACKEND == cuda && ${ARCH:-90a} == 90a ]] || return 1
  want=$("$PACK/tools/mlx-build" series "$@") || { say "build $arm: mlx-build series failed: building it"; return 1; }
  have=$(tar -xJOf "$archive" "$arm/SERIES" 2>/dev/null) ||
    { say "build $arm: no $arm/SERIES in $archive: building it"; return 1; }
  [[ $want == "$have" ]] || { say "build $arm: the prebuilt arm applied other patches (its SERIES): building it"; return 1; }
  rm -rf "$WORK/arms/$arm" && mkdir -p "$WORK/arms"
  tar -xmJf "$archive" -C "$WORK/arms" "$arm" ||
    { rm -rf "$WORK/arms/$arm"; say "build $arm: unpacking it from $archive failed: building it"; return 1; }
  # Built against another machine's libraries: each must resolve here by its soname, and each
  # function libmlx.so calls must be in one of them (ldd fails on a file that is no library).
  if ! ldd_out=$(ldd -r "$WORK/arms/$arm/lib/libmlx.so" 2>&1) ||
    grep -qE 'not found|undefined symbol: .*libmlx\.so\)' <<< "$ldd_out"; then
    say "build $arm: the prebuilt libmlx.so does not load here: $(grep -E 'not found|undefined|not a dynamic|No such' <<< "$ldd_out" | head -n 5 | tr '\n' ' '): building it"
    rm -rf "$WORK/arms/$arm"
    return 1
  fi
  say "build $arm: unpacked the arm prebuilt on the CPU machine ($(cat "$PACK/built/$arm.txt" 2>/dev/null))"
}
