#!/usr/bin/env bash
# Sourced by scripts/gpu/run: warm and e2e, over the lines of $E2E_MATRIX
# [scripts/gpu/e2e-matrix.tsv] (name preset prompt chunk gen [A:]B pairs [ENV]: arm A [stock]
# against arm B; ENV, KEY=VALUE,... set for arm B's worker alone (`mlx-ab run --b-env`), or
# for arm A's where written A:KEY=VALUE, so that A:B with both one build times a switch).
#   warm  each arm's JIT kernels for the matrix's workloads compiled before anything is timed
#   e2e   mlx-ab run for each line not yet done, as long as the budget lasts, $E2E_ARGS added
#         (e.g. --deterministic): e2e/NAME.{json,md}, e2e.md

# Each arm's JIT kernels for the matrix's workloads (preset, prompt, chunk), compiled before
# anything is timed: one `mlx-ab generate` per workload, into the kernel cache `mlx-ab run`
# later gives that arm; arms at once (one process per arm: MLX writes its cache files in
# place). Each arm's times show what compiling costs; stock's first workload is run twice,
# so the second time is the same work with nothing to compile.
run_warm() {
  local matrix=${E2E_MATRIX:-scripts/gpu/e2e-matrix.tsv} arm preset prompt chunk jobs=()
  local arms loads
  arms=$(awk '!/^#/ && NF >= 7 {print $6}' "$matrix" | tr ':' '\n' | sort -u | grep -vx stock)
  loads=$(awk '!/^#/ && NF >= 7 {print $2, $3, $4}' "$matrix" | sort -u)
  rm -f "$LOGS"/warm-*.txt
  for preset in $(awk '{print $1}' <<< "$loads" | sort -u); do make_model "$preset" || return 2; done
  for arm in stock $arms; do
    [[ -d $WORK/arms/$arm ]] || { say "warm: arm $arm not built; skipped"; continue; }
    (
      local first=1 t0 r
      while read -r preset prompt chunk; do
        for again in $( ((first)) && [[ $arm == stock ]] && echo 1 2 || echo 1); do
          t0=$(date +%s.%N)
          model_cmd generate "$arm" "$preset" "$prompt" "$chunk" --max-tokens 3
          timeout $(($(left) - 15)) "${CMD[@]}" > "$LOGS/warm-$arm.log" 2>&1
          r=$?
          printf '%-24s %-14s prompt %5s chunk %5s run %s: exit %s, %6.1f s\n' "$arm" "$preset" "$prompt" "$chunk" \
            "$again" "$r" "$(awk "BEGIN {print $(date +%s.%N) - $t0}")" >> "$LOGS/warm-$arm.txt"
          ((r == 0)) || { tail -n 5 "$LOGS/warm-$arm.log" >> "$LOGS/warm-$arm.txt"; exit 1; }
        done
        first=0
      done <<< "$loads"
    ) &
    jobs+=($!)
  done
  local rc=0 j
  for j in "${jobs[@]}"; do wait "$j" || rc=1; done
  cat "$LOGS"/warm-*.txt | tee "$LOGS/warm.txt"
  du -sh "$(ptx_cache_root)"/ptx/* 2>/dev/null | tee -a "$LOGS/warm.txt"
  ((rc == 0)) || { say "warm: an arm failed or ran out of time; call again"; return 3; }
}

# One mlx-ab run per matrix line (name preset prompt chunk gen [A:]B pairs [ENV]), each skipped once
# its report exists; a run the budget cannot hold (a generous guess from the last one) waits
# for the next call. e2e.md: one row per finished run.
run_e2e() {
  local matrix=${E2E_MATRIX:-scripts/gpu/e2e-matrix.tsv} dir=$LOGS/e2e last=0 rc=0
  local name preset prompt chunk gen ab a b pairs env e
  mkdir -p "$dir"
  while read -r name preset prompt chunk gen ab pairs env; do
    [[ -z $name || $name == \#* || -f $dir/$name.json ]] && continue
    [[ $ab == *:* ]] && a=${ab%%:*} b=${ab#*:} || a=stock b=$ab
    [[ -n $a && -n $b ]] || { say "e2e $name: '$ab' names no arm on one side of A:B"; rc=2; continue; }
    [[ -d $WORK/arms/$a && -d $WORK/arms/$b ]] || { say "e2e $name: arm $a or $b not built; skipped"; continue; }
    if (($(left) < 2 * last + 60)); then say "e2e $name: too little time left; call again"; rc=3; break; fi
    local args=(--preset "$preset" --prompt-len "$prompt" --prefill-chunk "$chunk" --gen-len "$gen" --pairs "$pairs")
    for e in ${env//,/ }; do [[ $e == A:* ]] && args+=(--a-env "${e#A:}") || args+=(--b-env "$e"); done
    local t0=$(date +%s)
    say "e2e $name: ${args[*]}"
    ab_run "$a" "$b" --device "$RUN_DEVICE" "${args[@]}" ${E2E_ARGS:-} --json "$dir/$name.json.part" \
      --md "$dir/$name.md" > "$dir/$name.log" 2>&1
    local r=$?
    last=$(($(date +%s) - t0))
    grep -E 'tokens/s|identical|differ|ERROR|error' "$dir/$name.log" | head -n 6
    if ((r == 0 || r == 1)); then mv "$dir/$name.json.part" "$dir/$name.json"; else say "e2e $name: exit $r"; rc=1; fi
  done < "$matrix"
  python3 scripts/gpu/e2e_summary.py "$dir" > "$LOGS/e2e.md" && cat "$LOGS/e2e.md"
  return $rc
}
