#!/usr/bin/env bash
# Sourced by scripts/gpu/run: what its stages share (the log line, the call's time left, the
# synthetic models and prompts of the model stages).

say() { printf '[%4ds] %s\n' $(($(date +%s) - START)) "$*"; }
die() { say "ERROR: $*"; exit 1; }
left() { echo $((START + BUDGET - $(date +%s))); }
# True if the call has at least SECONDS [60] left; else says WHAT waits for the next call.
time_for() { (($(left) > ${2:-60})) || { say "$1: too little time left in this call; call again"; return 1; }; }

# The report name of arm B: "" for patched, "-ARM" for any other.
suffix() { [[ $1 == patched ]] || printf -- '-%s' "$1"; }

# What tells one ops run from another, in its stamp and its files: [-A-vs][-B][-env][-TAG]
# (OPS_A stock and OPS_B patched leave theirs out; OPS_TAG names a run of other OPS_ARGS).
ops_id() {
  [[ ${OPS_A:-stock} == stock ]] || printf -- '-%s-vs' "$OPS_A"
  suffix "${OPS_B:-patched}"
  [[ -z ${OPS_A_ENV:-}${OPS_B_ENV:-} ]] || printf -- '-env'
  [[ -z ${OPS_TAG:-} ]] || printf -- '-%s' "$OPS_TAG"
}

# The synthetic model of a preset, made once into $WORK/warm-models, by stock's MLX or, where
# stock is not built (plan step 0), by the first built arm's (making it uses no patched op).
make_model() {
  [[ -d $WORK/warm-models/$1 ]] && return
  local arm=stock
  [[ -d $WORK/arms/stock ]] || arm=$(ls "$WORK/arms" 2>/dev/null | head -n 1)
  [[ -n $arm ]] || { say "make_model: no arm built"; return 1; }
  mkdir -p "$WORK/warm-models"
  "$WORK/arms/$arm/bin/mlx-ab" make-model --prebuilt "$WORK/arms/$arm" --preset "$1" \
    --out "$WORK/warm-models/$1" > "$LOGS/warm-make-$1.log" 2>&1 || { tail "$LOGS/warm-make-$1.log"; return 1; }
}

# N prompt token ids (1, 2, ... modulo 256: inside every preset's vocabulary), comma-separated.
prompt_tokens() { seq 1 "$1" | awk '{printf "%s%d", (NR > 1 ? "," : ""), $1 % 256}'; }

# CMD: the command line of `mlx-ab VERB` (generate, determinism) for ARM on PRESET's model,
# PROMPT tokens in chunks of CHUNK, then ARGS (an array, so that timeout or a tool can start it).
model_cmd() {
  local verb=$1 arm=$2 preset=$3 prompt=$4 chunk=$5
  shift 5
  CMD=("$WORK/arms/$arm/bin/mlx-ab" "$verb" --prebuilt "$WORK/arms/$arm" --model "$WORK/warm-models/$preset"
       --tokens "$(prompt_tokens "$prompt")" --prefill-chunk "$chunk" --device "$RUN_DEVICE" "$@")
}

# ARM's patches as mlx-build's arguments, one a line: stock none, patched all, another name that
# patch id alone; with EXTRA_PATCH="FILE..." (in the checkout, REPO), stock (EXTRA_BASE=all:
# the series) with those files applied after it (an experiment). For the build stage and for
# scripts/gpu/prebuild, which must build an arm alike.
arm_patch_args() { # ARM
  local list f
  case $1 in stock) list=none ;; patched) list=all ;; *) list=$1 ;; esac
  [[ -n ${EXTRA_PATCH:-} ]] && list=${EXTRA_BASE:-none}
  printf '%s\n' --patches "$list"
  for f in ${EXTRA_PATCH:-}; do printf '%s\n' --extra-patch "$REPO/$f"; done
}

# Copies into the built arm DIR the packed Rust binaries it runs: its own, or for an experiment
# those of its base arm (named by DIR/bin-arm, which the build writes), so that a pack made after
# the build still reaches it.
give_binaries() { # DIR
  local bin_arm
  bin_arm=$(cat "$1/bin-arm" 2>/dev/null || basename "$1")
  [[ -d $PACK/arms/$bin_arm/bin ]] || return 0
  cp -a "$PACK/arms/$bin_arm/bin/." "$1/bin/"
}
