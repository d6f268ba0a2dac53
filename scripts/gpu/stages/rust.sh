#!/usr/bin/env bash
# Sourced by scripts/gpu/run: rust, the packed Rust test binaries against each arm's CUDA
# libmlx: rust-tests.txt.

# Every test binary of both arms at once (each single-threaded), plus the differential tests
# against stock on the GPU (NAME-gpu: MLX_TESTS_DEVICE=gpu, their stock helper on the GPU too;
# eval_walk without Wide graphs, which stock alone evaluates to different bits there:
# reports/upstream/cuda-build-graph-eval-differs.md). RUST_TESTS: only these runs (e.g.
# "eval_walk-gpu"); MLX_FUZZ_CASES (the fuzz tests' long mode) and MLX_TESTS_GRAPH_KINDS pass
# through.
run_rust() {
  local arm t name jobs=() names=() i rc=0 out_of_time=0
  for arm in $ARMS; do
    [[ -d $WORK/arms/$arm/bin/tests ]] || die "arm $arm has no test binaries (pack packs them for stock and patched)"
    for t in "$WORK/arms/$arm/bin/tests/"*; do
      for name in "$(basename "$t")" $([[ $(basename "$t") =~ ^(eval_walk|gather_qmm_vs_stock)$ ]] && echo "$(basename "$t")-gpu"); do
        [[ -z ${RUST_TESTS:-} || " $RUST_TESTS " == *" $name "* ]] || continue
        (
          [[ $name == *-gpu ]] && export MLX_TESTS_DEVICE=gpu MLX_TESTS_GRAPH_KINDS=${MLX_TESTS_GRAPH_KINDS-small,chain}
          MLX_TESTS_STOCK_GRAPH_EVAL=$WORK/arms/stock/bin/graph-eval MLX_PTX_CACHE_DIR=$WORK/ptx/$arm \
            timeout $(($(left) - 20)) "$t" --test-threads 1 > "$LOGS/rust-$arm-$name.log" 2>&1
        ) &
        jobs+=($!) names+=("$arm $name")
      done
    done
  done
  for i in "${!jobs[@]}"; do
    wait "${jobs[$i]}"; local trc=$?
    local log=$LOGS/rust-${names[$i]// /-}.log
    say "rust ${names[$i]}: exit $trc; $(grep -E '^test result' "$log" | tail -n1)"
    grep -E '^test .* FAILED$|panicked at' "$log" | head -n 6
    echo "${names[$i]} exit $trc" >> "$LOGS/rust-tests.txt"
    ((trc == 0)) || rc=1
    ((trc == 124)) && out_of_time=1
  done
  # A test stopped by the time limit ran only in part: not a result, so not stamped done.
  ((out_of_time)) && return 3
  return $rc
}
