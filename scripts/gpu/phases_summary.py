#!/usr/bin/env python3
"""Where prefill and decode time go, for scripts/gpu/run's phases stage: one line per
`mlx-ab generate --phases --json` file given: the generations discarded before it (--warmup), the
prefill's milliseconds in all (from its tokens/s) and in each phase (building
the graph, MLX's submission, waiting for the device, clearing MLX's buffer cache after each
chunk, reading back the first token; "-" for files from before 2026-12-07, which split decode
only), then its decode tokens/s and the milliseconds per decode token of each phase. The first
token comes from the prefill, so a run of n tokens has n - 1 steps."""
import json
import os
import sys

PREFILL = ("graph_seconds", "submit_seconds", "wait_seconds", "clear_cache_seconds", "readback_seconds")
DECODE = ("graph_seconds", "submit_seconds", "wait_seconds", "readback_seconds")


def line(path):
    with open(path) as f:
        run = json.load(f)
    steps = len(run["tokens"]) - 1
    if steps < 1 or "decode_phases" not in run:
        raise ValueError(f"{path}: no decode steps with phases (run with --phases and --max-tokens >= 2)")
    prefill = run.get("prefill_phases")
    pre = [f"{1e3 * prefill[k]:.3f}" for k in PREFILL] if prefill else ["-"] * len(PREFILL)
    total = f"{1e3 * run['prompt_tokens'] / run['prefill_tps']:.3f}" if run.get("prefill_tps") else "-"
    dec = [f"{1e3 * run['decode_phases'][k] / steps:.3f}" for k in DECODE]
    warmup = str(run.get("warmup", "-"))
    return " ".join([os.path.basename(path), warmup, total] + pre + [f"{run['decode_tps']:.1f}"] + dec)


def main(paths):
    print("file warmup  prefill ms: all graph submit wait clear_cache readback  "
          "decode tok/s  per token ms: graph submit wait readback")
    try:
        for path in paths:
            print(line(path))
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"phases_summary: {e}")


if __name__ == "__main__":
    main(sys.argv[1:])
