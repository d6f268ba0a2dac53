#!/usr/bin/env bash
# Sourced by scripts/gpu/run: the A/B stages, stock against another arm, by mlx-ab.
#   ab    mlx-ab run (a model) against $AB_B [patched], $AB_ARGS added: ab-gpu[-ARM].{json,md}
#   ops   mlx-ab ops (single ops), $OPS_A [stock] against $OPS_B [patched], $OPS_ARGS added
#         (without --budget: the stage passes the call's time left; with --precompile
#         $OPS_PRECOMPILE [half the cores per arm] on CUDA): ops-gpu[-A-vs][-B][-env][-TAG].{json,md}
#         (lib.sh's ops_id); an A other than stock measures an experiment against the series it
#         is built on; $OPS_A_ENV / $OPS_B_ENV ("KEY=VALUE ..."): variables for one arm's workers
#         alone, so OPS_A=B OPS_B=B OPS_B_ENV=... times an experiment's run-time switch within
#         one build; $OPS_TAG: a name for a further run of the same arms with other $OPS_ARGS
#   script  mlx-ab script: patches/prs/benchmarks/$SCRIPT.py [gather_qmm_sorted_bench] with
#         $SCRIPT_ARGS [--device gpu] under MLX's Python package (.gpu/wheels), against
#         $SCRIPT_B [patched], $SCRIPT_PAIRS [6] pairs: script-gpu-$SCRIPT[-ARM].{json,md}

run_ops() {
  local a=${OPS_A:-stock} b=${OPS_B:-patched} name env=() e
  for e in ${OPS_A_ENV:-}; do env+=(--a-env "$e"); done
  for e in ${OPS_B_ENV:-}; do env+=(--b-env "$e"); done
  name=ops-gpu$(ops_id)
  # --budget is checked between points, and a point's warm-up can compile kernels for a minute
  # or more: the timeout's SIGTERM ends mlx-ab there with the points finished (2026-12-03: a
  # point that started within the budget ran past the call's limit, and the call lost its logs).
  # The driver links no MLX (every arm's is the same); arm A's is there whichever arms were
  # built. One build against itself (a run-time switch) gets two JIT caches: the arms'
  # precompile workers would write the same files at once. The GPU's clocks beside it
  # ($name-clocks.csv, one line at the end): an arm's time moved 28% between two calls (ccefcbe).
  scripts/gpu/clocks "$LOGS/$name-clocks.csv" "$name" \
    timeout $(($(left) - 15)) "$WORK/arms/$a/bin/mlx-ab" ops --a "$WORK/arms/$a" --b "$WORK/arms/$b" \
    --a-ptx-cache "$WORK/ptx/$a" --b-ptx-cache "$WORK/ptx/$b$([[ $a == "$b" ]] && echo -b)" \
    --budget $(($(left) - 90)) \
    --precompile "$([[ $BACKEND == cuda ]] && echo "${OPS_PRECOMPILE:-$((JOBS / 2))}" || echo 0)" \
    "${env[@]}" --json "$LOGS/$name.json" --md "$LOGS/$name.md" ${OPS_ARGS:-} 2>&1 | tail -n 100
  return "${PIPESTATUS[0]}"
}

# mlx-ab run, arm A against arm B, within the call's time left; the rest are its arguments.
ab_run() {
  local a=$1 b=$2 pa pb
  shift 2
  pa=$(paste -sd, "$WORK/arms/$a/PATCHES") pb=$(paste -sd, "$WORK/arms/$b/PATCHES")
  timeout $(($(left) - 10)) "$WORK/arms/$b/bin/mlx-ab" run --a-patches "${pa:-none}" --a-prebuilt "$WORK/arms/$a" \
    --b-patches "${pb:-none}" --b-prebuilt "$WORK/arms/$b" "$@"
}

run_ab() {
  local b=${AB_B:-patched}
  ab_run stock "$b" --device "${AB_DEVICE:-$RUN_DEVICE}" --json "$LOGS/ab-gpu$(suffix "$b").json" \
    --md "$LOGS/ab-gpu$(suffix "$b").md" ${AB_ARGS:-} 2>&1 | tail -n 60
  return "${PIPESTATUS[0]}"
}

run_script() {
  local b=${SCRIPT_B:-patched} name=${SCRIPT:-gather_qmm_sorted_bench} site=$WORK/python py
  py=$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
  if [[ ! -d $site/mlx ]]; then
    local wheel=("$PACK"/wheels/mlx-*-"$py"-*.whl)
    [[ -f ${wheel[0]} ]] || { say "script: no mlx wheel for $py in .gpu/wheels"; return 1; }
    python3 -m pip install -q --no-index --no-deps --no-compile --target "$site" "${wheel[0]}" || return 1
  fi
  local out=$LOGS/script-gpu-$name$(suffix "$b")
  PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH} timeout $(($(left) - 10)) "$WORK/arms/stock/bin/mlx-ab" script \
    --a "$WORK/arms/stock" --b "$WORK/arms/$b" --a-ptx-cache "$WORK/ptx/stock" --b-ptx-cache "$WORK/ptx/$b" \
    --pairs "${SCRIPT_PAIRS:-6}" --json "$out.json" --md "$out.md" -- \
    python3 "patches/prs/benchmarks/$name.py" ${SCRIPT_ARGS:---device gpu} 2>&1 | tail -n 60
  return "${PIPESTATUS[0]}"
}
