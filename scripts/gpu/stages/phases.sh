#!/usr/bin/env bash
# Sourced by scripts/gpu/run: phases, where prefill and decode time go (mlx-ab generate --phases).

# Where prefill and decode time go (issue 8, goal 3; issue 26, item 4): the prefill and each
# step split into building the graph, MLX's submission (async_eval), the wait for the device,
# clearing MLX's buffer cache and the read-back, for stock and $PHASES_B
# [patched], stock first in every round ($PHASES_RUNS [3] rounds), on each preset of
# $PHASES_PRESETS [qwen3-30b-a3b] (bench beside it);
# PHASES_PROMPT [2048] tokens in one chunk, then 128 decode steps, after one discarded generation
# (a fresh process's first carries one-time costs). Run after `warm`, whose kernel cache it reuses.
# PHASES_TAG names a run under other settings (its files phases-TAG-*, its own stamp), e.g.
# PHASES_TAG=nographs MLX_USE_CUDA_GRAPHS=0; PHASES_ARMS [stock $PHASES_B] the arms run.
run_phases() {
  local prompt=${PHASES_PROMPT:-2048} b=${PHASES_B:-patched} preset n arm rc=0
  local name=phases${PHASES_TAG:+-$PHASES_TAG} files=() arms=${PHASES_ARMS:-stock $b}
  for arm in $arms; do [[ -d $WORK/arms/$arm ]] || { say "phases: arm $arm not built"; return 2; }; done
  for preset in ${PHASES_PRESETS:-qwen3-30b-a3b}; do
    make_model "$preset" || return 2
    for n in $(seq "${PHASES_RUNS:-3}"); do
      for arm in $arms; do
        time_for phases || return 3
        rm -f "$LOGS/$name-$preset-$arm-$n".{json,log}  # the summary takes this run's files alone
        model_cmd generate "$arm" "$preset" "$prompt" "$prompt" --max-tokens 129 --phases --warmup 1 \
          --json "$LOGS/$name-$preset-$arm-$n.json"
        if timeout $(($(left) - 10)) "${CMD[@]}" > /dev/null 2> "$LOGS/$name-$preset-$arm-$n.log"; then
          files+=("$LOGS/$name-$preset-$arm-$n.json")
        else
          say "phases $preset $arm run $n: exit $?"; rc=2
        fi
      done
    done
  done
  ((${#files[@]})) || return 2
  python3 scripts/gpu/phases_summary.py "${files[@]}" | tee "$LOGS/$name.txt"
  return $rc
}
