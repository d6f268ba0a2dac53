#!/usr/bin/env bash
# Sourced by scripts/gpu/run: rust, the packed Rust test binaries against each arm's CUDA
# libmlx: rust-tests.txt.

# Every test binary of both arms at once (each single-threaded), plus the differential tests
# against stock on the GPU (NAME-gpu: MLX_TESTS_DEVICE=gpu, their stock helper on the GPU too;
# graphs_vs_stock without Wide graphs, which stock alone evaluates to different bits there:
# reports/upstream/cuda-build-graph-eval-differs.md). RUST_TESTS: only these runs (e.g.
# "graphs_vs_stock-gpu"); MLX_FUZZ_CASES (the fuzz tests' long mode) and MLX_TESTS_GRAPH_KINDS pass
# through. RUST_SHARDS [1]: a `-gpu` run's MLX_FUZZ_CASES random cases split over that many
# processes side by side, shard j from seed MLX_FUZZ_SEED + j * cases / shards (case i's seed
# is seed + i, so the shards cover one run's seeds; bash's arithmetic: a given seed below 2^62);
# the other shards run the random test only (rust-ARM-NAME-shardJ.log). RUST_FILTER: a test name
# filter for every run (libtest's); the kernels are then not compiled first (the filtered
# tests compile what they use).
# The CuTe modules the GPU gather_qmm cases compile at run time (seconds each, one after another
# in a process), compiled first over the first $MOE_WARM_SEEDS [512] seeds: one `graph-eval moe`
# per quantization (`graph-eval moe-groups`: the groups' quantized-product modules are disjoint)
# and build, stock's and each arm's, side by side, into that build's cache. Every stock helper
# runs stock's build, so each arm's helper cache then gets a copy of stock's: stock's modules
# compile once, not once per cache (on 2026-12-06 four caches took 360-370 s). Best effort:
# modules the groups share (x's copies) may be compiled by several at once, and a module left
# out is compiled by the test.
warm_moe_kernels() {
  local groups line arm t0=$SECONDS builds
  builds=$(printf '%s\n' stock $ARMS | sort -u)
  groups=$(MLX_TESTS_DEVICE=gpu "$WORK/arms/stock/bin/graph-eval" moe-groups 0 "${MOE_WARM_SEEDS:-512}") || return 0
  while read -r line; do
    for arm in $builds; do
      MLX_TESTS_DEVICE=gpu MLX_PTX_CACHE_DIR=$WORK/ptx/$arm timeout $(($(left) - 60)) \
        "$WORK/arms/$arm/bin/graph-eval" moe $line > /dev/null 2>&1 &
    done
  done <<< "$groups"
  wait
  for arm in $ARMS; do
    mkdir -p "$WORK/ptx/$arm/stock-helper"
    find "$WORK/ptx/stock" -maxdepth 1 -type f -exec cp -t "$WORK/ptx/$arm/stock-helper" {} +
  done
  say "rust: gather_qmm's kernels compiled in $((SECONDS - t0)) s, $(wc -l <<< "$groups") groups; PTX modules: $(for arm in $builds; do printf '%s %s ' "$arm" "$(ls "$WORK/ptx/$arm" 2>/dev/null | grep -c '\.ptx$')"; done)"
}

run_rust() {
  local arm t name jobs=() names=() i rc=0 out_of_time=0
  [[ -z ${RUST_FILTER:-} ]] && [[ -z ${RUST_TESTS:-} || " $RUST_TESTS " == *" gather_qmm_vs_stock-gpu "* ]] && warm_moe_kernels
  for arm in $ARMS; do
    [[ -d $WORK/arms/$arm/bin/tests ]] || die "arm $arm has no test binaries (pack packs them for stock and patched)"
    for t in "$WORK/arms/$arm/bin/tests/"*; do
      for name in "$(basename "$t")" $([[ $(basename "$t") =~ ^(graphs_vs_stock|gather_qmm_vs_stock)$ ]] && echo "$(basename "$t")-gpu"); do
        [[ -z ${RUST_TESTS:-} || " $RUST_TESTS " == *" $name "* ]] || continue
        (
          [[ $name == *-gpu ]] && export MLX_TESTS_DEVICE=gpu MLX_TESTS_GRAPH_KINDS=${MLX_TESTS_GRAPH_KINDS-small,chain}
          export MLX_TESTS_STOCK_GRAPH_EVAL=$WORK/arms/stock/bin/graph-eval MLX_PTX_CACHE_DIR=$WORK/ptx/$arm
          # A -gpu run prints what it counted (stock faults, refusals) even when it passes.
          local shards=1 j r pids=() src=0 show=()
          [[ $name == *-gpu ]] && show=(--nocapture)
          [[ $name == *-gpu && -n ${MLX_FUZZ_CASES:-} ]] && shards=${RUST_SHARDS:-1}
          if ((shards > 1)); then
            local cases=$((MLX_FUZZ_CASES / shards)) seed=${MLX_FUZZ_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
            for ((j = 1; j < shards; j++)); do
              MLX_FUZZ_SEED=$((seed + j * cases)) MLX_FUZZ_CASES=$cases timeout $(($(left) - 20)) \
                "$t" random --test-threads 1 "${show[@]}" > "$LOGS/rust-$arm-$name-shard$j.log" 2>&1 &
              pids+=($!)
            done
            export MLX_FUZZ_SEED=$seed MLX_FUZZ_CASES=$cases
          fi
          timeout $(($(left) - 20)) "$t" ${RUST_FILTER:+"$RUST_FILTER"} --test-threads 1 "${show[@]}" > "$LOGS/rust-$arm-$name.log" 2>&1 || src=$?
          # The worst exit wins: a timeout (124) over a failure over a pass.
          for j in "${pids[@]}"; do wait "$j"; r=$?; ((r > src)) && src=$r; done
          exit "$src"
        ) &
        jobs+=($!) names+=("$arm $name")
      done
    done
  done
  for i in "${!jobs[@]}"; do
    wait "${jobs[$i]}"; local trc=$?
    local log=$LOGS/rust-${names[$i]// /-}.log
    say "rust ${names[$i]}: exit $trc; $(grep -E '^test result' "$log" | tail -n1)"
    grep -E '^test .* FAILED$|panicked at' "$log" "${log%.log}"-shard*.log 2>/dev/null | head -n 6
    echo "${names[$i]} exit $trc" >> "$LOGS/rust-tests.txt"
    ((trc == 0)) || rc=1
    ((trc == 124)) && out_of_time=1
  done
  # A test stopped by the time limit ran only in part: not a result, so not stamped done.
  ((out_of_time)) && return 3
  return $rc
}
