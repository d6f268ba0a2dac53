#!/usr/bin/env bash
# Sourced by scripts/gpu/run: the A/B stages, stock against another arm, by mlx-ab.
#   ab    mlx-ab run (a model) against $AB_B [patched], $AB_ARGS added: ab-gpu[-ARM].{json,md}
#   ops   mlx-ab ops (single ops) against $OPS_B [patched], $OPS_ARGS added (without --budget:
#         the stage passes the call's time left; with --precompile $OPS_PRECOMPILE [half the
#         cores per arm] on CUDA): ops-gpu[-ARM].{json,md}

run_ops() {
  local b=${OPS_B:-patched}
  # --budget is checked between points, and a point's warm-up can compile kernels for a minute
  # or more: the timeout's SIGTERM ends mlx-ab there with the points finished (2026-12-03: a
  # point that started within the budget ran past the call's limit, and the call lost its logs).
  timeout $(($(left) - 15)) "$WORK/arms/stock/bin/mlx-ab" ops --a "$WORK/arms/stock" --b "$WORK/arms/$b" \
    --a-ptx-cache "$WORK/ptx/stock" --b-ptx-cache "$WORK/ptx/$b" --budget $(($(left) - 90)) \
    --precompile "$([[ $BACKEND == cuda ]] && echo "${OPS_PRECOMPILE:-$((JOBS / 2))}" || echo 0)" \
    --json "$LOGS/ops-gpu$(suffix "$b").json" --md "$LOGS/ops-gpu$(suffix "$b").md" ${OPS_ARGS:-} 2>&1 | tail -n 100
  return "${PIPESTATUS[0]}"
}

# mlx-ab run, stock against arm B, within the call's time left; the rest are its arguments.
ab_run() {
  local b=$1 patches
  shift
  patches=$(paste -sd, "$WORK/arms/$b/PATCHES")
  timeout $(($(left) - 10)) "$WORK/arms/$b/bin/mlx-ab" run --a-patches none --a-prebuilt "$WORK/arms/stock" \
    --b-patches "${patches:-none}" --b-prebuilt "$WORK/arms/$b" "$@"
}

run_ab() {
  local b=${AB_B:-patched}
  ab_run "$b" --device "${AB_DEVICE:-$RUN_DEVICE}" --json "$LOGS/ab-gpu$(suffix "$b").json" \
    --md "$LOGS/ab-gpu$(suffix "$b").md" ${AB_ARGS:-} 2>&1 | tail -n 60
  return "${PIPESTATUS[0]}"
}
