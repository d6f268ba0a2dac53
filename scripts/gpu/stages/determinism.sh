#!/usr/bin/env bash
# Sourced by scripts/gpu/run: determinism, mlx-ab determinism for each arm of $DET_ARMS [stock].

# The repeat-and-compare run of each arm (DET_PRESET [qwen3-30b-a3b], DET_PROMPT [2048, one
# chunk], DET_DECODE [31] decode steps, DET_REPEATS [3]) three times: as is; with MLX's CUDA
# graphs off (MLX_USE_CUDA_GRAPHS=0: every kernel launched in stream order), which tells a
# kernel from a missing dependency between graph nodes; and with cuDNN's SDPA off
# (MLX_CUDA_USE_CUDNN_SDPA=0), which sends bf16 decode attention over a fixed-size KV cache to
# MLX's own vector kernel instead (and prefill attention to the explicit chain). Run after
# `warm`, whose kernel cache it reuses.
run_determinism() {
  local preset=${DET_PRESET:-qwen3-30b-a3b} prompt=${DET_PROMPT:-2048} arm variant name rc=0
  make_model "$preset" || return 2
  for arm in ${DET_ARMS:-stock}; do
    for variant in "" nographs nocudnn; do
      name=determinism-$arm${variant:+-$variant}
      time_for "$name" || return 3
      model_cmd determinism "$arm" "$preset" "$prompt" "$prompt" --decode-steps "${DET_DECODE:-31}" \
        --repeats "${DET_REPEATS:-3}"
      local graphs=1 cudnn=1
      case $variant in nographs) graphs=0 ;; nocudnn) cudnn=0 ;; esac
      MLX_USE_CUDA_GRAPHS=$graphs MLX_CUDA_USE_CUDNN_SDPA=$cudnn \
        timeout $(($(left) - 10)) "${CMD[@]}" > "$LOGS/$name.txt" 2>&1
      local r=$?
      say "$name: exit $r; $(tail -n 1 "$LOGS/$name.txt")"
      ((r == 0 || r == 1)) || rc=$r
    done
  done
  return $rc
}
