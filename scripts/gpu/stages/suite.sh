#!/usr/bin/env bash
# Sourced by scripts/gpu/run: suite, MLX's C++ suite of each arm of $ARMS on the GPU and the
# CPU: mlx-suite.json (scripts/gpu/suite_summary.py).

# SUITE_JIT_CASES: doctest case filters separated by '|', cases that spend minutes compiling
# kernels at run time; each filter runs in a process of its own (label gpujitN) beside one
# for all the other GPU cases, all at once.
# SUITE_DEVICES ["gpu cpu"] and SUITE_CASES (a doctest -tc filter) narrow a run.
run_suite() {
  local jobs=() arm dev runs=(${SUITE_DEVICES:-gpu cpu}) jit=() i
  IFS='|' read -ra jit <<< "${SUITE_JIT_CASES:-}"
  for i in "${!jit[@]}"; do runs+=("gpujit$i"); done
  for arm in $ARMS; do
    [[ -x $WORK/arms/$arm/bin/mlx-suite ]] ||
      die "suite: arm $arm has no MLX suite (built with BUILD_SUITE=0, or prebuilt): build it again with BUILD_SUITE=1 (remove $WORK/done/build-$arm)"
  done
  for arm in $ARMS; do
    for dev in "${runs[@]}"; do
      (
        local args=() scratch
        [[ $dev == gpu* ]] && args=(-sfe='*linalg_tests.cpp')
        [[ $dev == gpu && ${#jit[@]} -gt 0 ]] && args+=(-tce="$(IFS=,; echo "${jit[*]}")")
        [[ $dev == gpujit* ]] && args+=(-tc="${jit[${dev#gpujit}]}")
        [[ -n ${SUITE_CASES:-} ]] && args+=(-tc="$SUITE_CASES")
        scratch=$(mktemp -d)
        cd "$scratch" && DEVICE=${dev%jit*} MLX_PTX_CACHE_DIR=$WORK/ptx/$arm LD_LIBRARY_PATH="$WORK/arms/$arm/lib:$LD_LIBRARY_PATH" \
          timeout $(($(left) - 20)) stdbuf -oL "$WORK/arms/$arm/bin/mlx-suite" --no-colors=true --duration=true \
          "${args[@]}" > "$LOGS/suite-$arm-$dev.log" 2>&1
        echo $? > "$LOGS/suite-$arm-$dev.rc"
      ) &
      jobs+=($!)
    done
  done
  wait "${jobs[@]}"
  local series=$WORK/arms/patched/SERIES
  [[ -f $series ]] || series=
  python3 scripts/gpu/suite_summary.py "$LOGS" $series > "$LOGS/mlx-suite.json" || die "suite summary"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(json.dumps(d["patch_only_failures"]), {a: {k: (v["cases"], v["failed"]) for k, v in r.items()} for a, r in d["runs"].items()})' "$LOGS/mlx-suite.json"
  # A filter that matches no case fails the stage (2026-12-06, fc98330: a ':'-separated
  # SUITE_CASES ran nothing, and the stage was stamped done).
  local empty
  empty=$(for arm in $ARMS; do for dev in "${runs[@]}"; do
    grep -lE '^\[doctest\] test cases: *0 \|' "$LOGS/suite-$arm-$dev.log"; done; done)
  [[ -z $empty ]] || { say "suite: no case ran (${SUITE_CASES:-}): $empty"; return 1; }
  # A run stopped by the budget is run again by the next call (on a warm JIT cache).
  ! grep -qx 124 "$LOGS"/suite-*.rc || { say "suite: a run ran out of time; call again"; return 3; }
}
