#!/usr/bin/env bash
# Sourced by scripts/gpu/run: profile, ncu and compute-sanitizer ($PROFILE_TOOLS).

# The GPU's work per decode token (issue 8, goal 3: how much of qwen3-30b-a3b's token it takes;
# Nsight Systems makes no report on this machine): ncu's duration of every kernel of arm
# $GPUTIME_ARM's [stock] generate on $GPUTIME_PRESET [qwen3-30b-a3b], a $GPUTIME_PROMPT [2048]
# token prompt in one chunk, with 2 and with 6 new tokens. The difference over 4 is one decode
# step's kernel time, each kernel run alone (no launch gaps, no overlap), caches left warm;
# then the kernels of those 4 steps by name (scripts/gpu/gputime_summary.py), and the prefill's
# (the shorter run's kernels to the first token's ArgMax; not with GPUTIME_SKIP): gputime-ARM.txt.
# GPUTIME_SKIP [0]: kernels each run launches unprofiled first (ncu --launch-skip), fewer than
# the shorter run's: both runs launch the same ones, so the difference keeps its meaning, and
# the prefill's cost no replay (qwen3-30b-a3b at prompt 512: 920 kernels in the shorter run,
# 290 a decode step; 2026-12-07, 7bb3e52).
run_gputime() {
  local ncu=$1 preset=${GPUTIME_PRESET:-qwen3-30b-a3b} prompt=${GPUTIME_PROMPT:-2048} n
  local arm=${GPUTIME_ARM:-stock} skip=${GPUTIME_SKIP:-0} stamp csv key
  make_model "$preset" || return 2
  key="$preset $prompt $skip"
  for n in 2 6; do
    # An ncu run an earlier call on this machine finished for the same key: kept.
    stamp=$WORK/done/gputime-$arm-$n csv=$LOGS/gputime-$arm-$n.csv
    [[ -f $stamp && $(< "$stamp") == "$key" ]] && continue
    time_for "gputime $arm $n" 120 || return 3
    rm -f "$stamp"  # the CSV below replaces the one it stamped
    model_cmd generate "$arm" "$preset" "$prompt" "$prompt" --max-tokens "$n"
    timeout $(($(left) - 10)) "$ncu" --clock-control none --cache-control none --target-processes all \
      --launch-skip "$skip" --metrics gpu__time_duration.sum --csv --print-units base "${CMD[@]}" \
      > "$csv" 2> "$LOGS/gputime-$arm-$n.log" || { say "gputime $arm $n: exit $?"; return 2; }
    grep -q gpu__time_duration "$csv" || { say "gputime $arm $n: ncu timed no kernel (GPUTIME_SKIP=$skip too many?)"; return 2; }
    echo "$key" > "$stamp"
  done
  {
    ((skip == 0)) || echo "(each run's first $skip kernels launched unprofiled, GPUTIME_SKIP: counts and times start after them)"
    python3 scripts/gpu/gputime_summary.py "$LOGS/gputime-$arm-"{2,6}.csv || exit 2
    ((skip > 0)) || { echo; python3 scripts/gpu/gputime_summary.py --prefill "$LOGS/gputime-$arm-2.csv"; }
  } | tee "$LOGS/gputime-$arm.txt"
  ((${PIPESTATUS[0]} == 0)) || return 2
}

# One request of mlx_ab_protocol::ops (JSON lines) for op-bench: CALLS [1] affine4 PROJ [up] gather_qmm
# calls of ROWS rows per expert, EXPERTS experts, K -> N, uniform loads, in one graph; then quit.
gather_qmm_request() { # ROWS EXPERTS K N [CALLS [PROJ]] (the shape is up's; down swaps K and N)
  printf '{"request":"time","op":{"op":"gather_qmm","mode":"affine4","proj":"%s","rows_per_expert":%s,"shape":[%s,%s,%s],"routing":"uniform"},"calls":%s,"reps":1}\n{"request":"quit"}\n' "${6:-up}" "$1" "$2" "$3" "$4" "${5:-1}"
}

# ARM's op-bench, reading requests on stdin, under TOOL... (ncu or compute-sanitizer and their
# options), within the call's budget.
op_bench_under() {
  local arm=$1; shift
  MLX_PTX_CACHE_DIR=$WORK/ptx/$arm LD_LIBRARY_PATH="$WORK/arms/$arm/lib:$LD_LIBRARY_PATH" \
    timeout $(($(left) - 10)) "$@" "$WORK/arms/$arm/bin/op-bench"
}

# Loads and stores outside any allocation, which fault only where no page follows the buffer
# (reports/upstream/cuda-qmm-sm80-prologue-past-k.md): each arm of $MEMCHECK_ARMS [stock patched]
# runs one affine4 up gather_qmm call of each point of $MEMCHECK_POINTS, ROWS,EXPERTS,K,N
# [16,4,64,256: one K tile, where stock's mainloop reads past K and 0004 bounds it], in op-bench
# under compute-sanitizer's memcheck, each kernel launched on its own (no CUDA graphs, blocking
# launches) so that a report names its kernel: memcheck-ARM-POINT.txt. 0008's grouped GEMM:
# MEMCHECK_ARMS=patched MEMCHECK_POINTS=16,128,2048,768. MEMCHECK_VARIANTS="VAR=VALUE ...":
# each point runs once per assignment, in its environment (an experiment's diagnostic
# switch): memcheck-ARM-POINT-VALUE.txt.
run_memcheck() {
  local cs=$1 arm point r e k n variant log
  local variants=(${MEMCHECK_VARIANTS:-})
  ((${#variants[@]})) || variants=("")
  for arm in ${MEMCHECK_ARMS:-stock patched}; do
    for point in ${MEMCHECK_POINTS:-16,4,64,256}; do
      IFS=, read -r r e k n <<< "$point"
      for variant in "${variants[@]}"; do
        log=memcheck-$arm-$point${variant:+-${variant#*=}}
        time_for "$log" 120 || return 3
        gather_qmm_request "$r" "$e" "$k" "$n" | (
          [[ -z $variant ]] || export "$variant"
          MLX_USE_CUDA_GRAPHS=0 CUDA_LAUNCH_BLOCKING=1 op_bench_under "$arm" "$cs" --tool memcheck
        ) > "$LOGS/$log.txt" 2>&1
        # A request that fails before any kernel runs leaves memcheck nothing to find: say so.
        say "$log: exit $?; $(grep -E 'ERROR SUMMARY' "$LOGS/$log.txt")$(grep -o '"reply":"error","message":"[^"]*"' "$LOGS/$log.txt" | sed 's/^/; THE REQUEST FAILED: /')"
      done
    done
  done
}

# Where one gather_qmm call's time goes (issue 26: in MLX the grouped Hopper GEMM took 0.54 ms
# a call at 256 rows per expert, by `mlx-ab ops`, where its kernel alone takes 0.22; the
# series' 0004 1.12 against 0.83): ncu's duration of every kernel of op-bench requests of 1 and
# of 3 affine4 up calls at Qwen3-30B-A3B's expert shapes, clocks left alone; the difference is
# 2 calls' kernels, by name (scripts/gpu/gputime_summary.py): calltime-ARM[-VALUE]-rR.txt. Set
# against the wall time per call of `ops`, it splits kernels from the rest (launches, waits,
# memory). Arms $CALLTIME_ARMS [patched], rows per expert $CALLTIME_ROWS [256], projections
# $CALLTIME_PROJECTIONS [up] (down: calltime-ARM-rR-down.txt);
# CALLTIME_VARIANTS="VAR=VALUE ...", as memcheck's: each arm once per assignment, in its
# environment (MLX_GATHER_QMM_SM90=off), calltime-ARM-VALUE-rR.txt.
run_calltime() {
  local ncu=$1 arm variant r calls log projection
  local variants=(${CALLTIME_VARIANTS:-})
  ((${#variants[@]})) || variants=("")
  for arm in ${CALLTIME_ARMS:-patched}; do
    for variant in "${variants[@]}"; do
      for r in ${CALLTIME_ROWS:-256}; do
        for projection in ${CALLTIME_PROJECTIONS:-up}; do
          log=calltime-$arm${variant:+-${variant#*=}}-r$r
          [[ $projection == up ]] || log+=-$projection
          time_for "$log" 120 || return 3
          for calls in 1 3; do
            gather_qmm_request "$r" 128 2048 768 "$calls" "$projection" | (
              [[ -z $variant ]] || export "$variant"
              op_bench_under "$arm" "$ncu" --clock-control none --metrics gpu__time_duration.sum \
                --csv --print-units base
            ) > "$LOGS/$log-$calls.csv" 2> "$LOGS/$log-$calls.log" || { say "$log: ncu exit $?"; return 2; }
          done
          python3 scripts/gpu/gputime_summary.py "$LOGS/$log-"{1,3}.csv 2 "gather_qmm call" \
            > "$LOGS/$log.txt" 2>&1
          say "$log: $(sed -n 2p "$LOGS/$log.txt")"
        done
      done
    done
  done
}

# What bounds sorted gather_qmm (issue 8, goal 1): ncu's speed-of-light, memory, compute and
# occupancy sections for each arm's kernels at Qwen3-30B-A3B's expert shapes, affine4 up
# projection, r rows per expert ($PROFILE_ROWS [1 8 128]), clocks left alone (the device
# notes: --clock-control none). Then stock's decode under compute-sanitizer: racecheck
# (shared-memory hazards) and initcheck (reads of memory never written), looking for the cause
# of its nondeterministic decode attention (reports/upstream/cuda-sdpa-decode-nondeterminism.md).
# PROFILE_TOOLS picks which of them run (a slow one can get a call of its own): ncu, gputime,
# racecheck, initcheck (the default: all four), memcheck (run_memcheck) and calltime
# (run_calltime).
run_profile() {
  local ncu=${NCU:-$(command -v ncu || echo "$CUDA_HOME/bin/ncu")}
  local cs=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || echo "$CUDA_HOME/bin/compute-sanitizer")}
  local arm r tool rc=0
  wants() { [[ " ${PROFILE_TOOLS:-ncu gputime racecheck initcheck} " == *" $1 "* ]]; }
  if wants ncu && [[ -x $ncu ]]; then
    for arm in stock "${PROFILE_B:-patched}"; do
      for r in ${PROFILE_ROWS:-1 8 128}; do
        gather_qmm_request "$r" 128 2048 768 |
          op_bench_under "$arm" "$ncu" --clock-control none --kernel-name regex:qm --launch-count 4 \
            --section SpeedOfLight --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \
            --section Occupancy --section LaunchStats --csv --page details \
            > "$LOGS/ncu-$arm-r$r.csv" 2> "$LOGS/ncu-$arm-r$r.log"
        say "ncu $arm r=$r: exit $?; $(grep -c 'Duration' "$LOGS/ncu-$arm-r$r.csv") kernel(s) profiled"
      done
    done
  elif wants ncu; then
    say "profile: no ncu at $ncu (set NCU): gather_qmm not profiled"
  fi
  for tool in gputime calltime; do
    wants $tool || continue
    [[ -x $ncu ]] || { say "profile: no ncu at $ncu (set NCU): no $tool"; return 2; }
    run_$tool "$ncu" || rc=$?
    ((rc == 3)) && return 3
  done
  wants racecheck || wants initcheck || wants memcheck || return $rc
  [[ -x $cs ]] || { say "profile: no compute-sanitizer at $cs (set COMPUTE_SANITIZER)"; return 2; }
  if wants memcheck; then
    run_memcheck "$cs" || rc=$?
    ((rc == 3)) && return 3
  fi
  wants racecheck || wants initcheck || return $rc
  make_model qwen3-30b-a3b || return 2
  # racecheck looks at one kernel's shared memory, so it can be limited to the attention
  # kernels: names holding "sdpa", MLX's own (kernel_sdpav_*) and, as far as their names go,
  # cuDNN's, which this decode takes (the rest run at full speed). initcheck cannot: it would
  # count what unchecked kernels write as never written. So it runs everything, on a shorter
  # prompt (1,040 tokens: a 1,280-position cache, still cuDNN's decode path), twice. Older
  # sanitizers call the kernel filter --filter.
  local only=--kernel-name args
  [[ $("$cs" --help 2>&1) == *--kernel-name* ]] || only=--filter
  for tool in racecheck initcheck; do
    wants "$tool" || continue
    if [[ $tool == racecheck ]]; then
      model_cmd determinism stock qwen3-30b-a3b 2048 2048 --decode-steps 4 --repeats 2; args=("$only" kns=sdpa)
    else
      model_cmd determinism stock qwen3-30b-a3b 1040 1040 --decode-steps 2 --repeats 2; args=()
    fi
    time_for "compute-sanitizer $tool" || { rc=3; continue; }
    # One log per process (the driver and the worker it starts): sanitizer-TOOL-PID.txt.
    rm -f "$LOGS"/sanitizer-"$tool"-*.txt
    timeout $(($(left) - 10)) "$cs" --tool "$tool" "${args[@]}" --target-processes all \
      --log-file "$LOGS/sanitizer-$tool-%p.txt" "${CMD[@]}" > "$LOGS/sanitizer-$tool.out" 2>&1
    local r=$?
    say "compute-sanitizer $tool: exit $r; $(cat "$LOGS"/sanitizer-"$tool"-*.txt 2>/dev/null | grep -E 'ERROR SUMMARY' | paste -sd';')"
    ((r == 0 || r == 1)) || rc=2
  done
  return $rc
}
