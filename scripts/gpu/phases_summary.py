#!/usr/bin/env python3
"""Where decode time goes, for scripts/gpu/run's phases stage: one line per
`mlx-ab generate --decode-phases --json` file given, its decode tokens/s and the milliseconds
per decode token of each phase (building the graph, MLX's submission, waiting for the device,
reading back). The first token comes from the prefill, so a run of n tokens has n - 1 steps."""
import json
import os
import sys

PHASES = ("graph_seconds", "submit_seconds", "wait_seconds", "readback_seconds")


def line(path):
    with open(path) as f:
        run = json.load(f)
    steps = len(run["tokens"]) - 1
    if steps < 1 or "decode_phases" not in run:
        raise ValueError(f"{path}: no decode steps with phases (run with --decode-phases and --max-tokens >= 2)")
    ms = (1e3 * run["decode_phases"][k] / steps for k in PHASES)
    return f"{os.path.basename(path)} {run['decode_tps']:.1f} " + " ".join(f"{m:.3f}" for m in ms)


def main(paths):
    print("file  decode tok/s  per token ms: graph submit wait readback")
    try:
        for path in paths:
            print(line(path))
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"phases_summary: {e}")


if __name__ == "__main__":
    main(sys.argv[1:])
