#!/usr/bin/env bash
# Sourced by scripts/gpu/run: mutation, scripts/mutation-check for each patch number of
# $MUTATION_PATCHES [the numbers of tests/mutations/ whose mutants change CUDA code] in a CUDA
# build, the suite's cases on the GPU: mutation-NNNN.txt. The builds use the arms' tree
# ($WORK/tree), so run it after build-ARM (an arm unpacked prebuilt leaves that tree empty: the
# first mutant then builds MLX whole).
# MUTATION_CASE_TIMEOUT [240]: a mutant's cases stop there and count as killed, "timed out"
# (2026-12-04: 0004's 02 hung past 300 s twice; its control took 142-159 s on an empty JIT cache).

run_mutation() {
  local n rc=0 cuda
  unpack
  cuda=$(grep -l '^diff --git a/mlx/backend/cuda/' tests/mutations/*/0*.patch | cut -d/ -f3 | sort -u)
  for n in ${MUTATION_PATCHES:-$cuda}; do
    time_for "mutation $n" 120 || return 3
    CUDNN_ROOT=$CUDNN_ROOT MLX_CUDA_DEPS_DIR=$WORK/deps CMAKE_GENERATOR=Ninja NUM_JOBS=$JOBS \
      DEVICE=gpu MUTATION_TREE=$WORK/tree MUTATION_CASE_TIMEOUT=${MUTATION_CASE_TIMEOUT:-240} \
      MUTATION_BUILD_FLAGS="--cuda --arch ${ARCH:-90a} --source $WORK/pristine" \
      timeout $(($(left) - 10)) scripts/mutation-check "$n" > "$LOGS/mutation-$n.txt" 2>&1
    local mrc=$?
    tail -n 12 "$LOGS/mutation-$n.txt"
    # The builds' and cases' logs come back with the others.
    mkdir -p "$LOGS/mutation-$n" && cp target/mutation-check/logs/"$n"/* "$LOGS/mutation-$n/" 2>/dev/null
    # Stopped by the budget: no verdict, so not stamped (2026-12-06, a694b96: a check cut short
    # was stamped done, and the next call skipped it).
    ((mrc == 124)) && { say "mutation $n: stopped by the budget; call again"; return 3; }
    ((mrc == 0)) || rc=1
  done
  return $rc
}
