#!/usr/bin/env python3
"""Reference generation with mlx-lm, for the Rust parity test (tests/tests/mlx_lm_parity.rs).

Loads a checkpoint directory with mlx_lm.utils.load_model, generates greedily with
mlx_lm.generate.generate_step (mlx-lm's own prefill chunking, KV cache and sampler), and prints
one JSON object: the generated tokens, the raw last-position logits of every step (as float32
values), and the versions used. The logits are captured by a logits processor that returns
them unchanged, so generation is exactly mlx-lm's.
"""

import argparse
import json
import sys
from importlib.metadata import version
from pathlib import Path

import mlx.core as mx
from mlx_lm.generate import generate_step
from mlx_lm.utils import load_model


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", required=True, help="checkpoint directory")
    parser.add_argument("--prompt", required=True, help="comma-separated token ids")
    parser.add_argument("--max-tokens", type=int, required=True)
    parser.add_argument("--prefill-chunk", type=int, required=True)
    args = parser.parse_args()

    model, _config = load_model(Path(args.model))
    prompt = mx.array([int(t) for t in args.prompt.split(",")])

    captured = []

    def capture(_tokens, logits):
        captured.append(logits)
        return logits

    tokens = []
    steps = generate_step(
        prompt,
        model,
        max_tokens=args.max_tokens,
        logits_processors=[capture],
        prefill_step_size=args.prefill_chunk,
    )
    for token, _logprobs in steps:
        tokens.append(int(token))

    # generate_step computes one step ahead of what it yields; keep the yielded steps.
    logits = [l.astype(mx.float32).reshape(-1).tolist() for l in captured[: len(tokens)]]
    out = {
        "tokens": tokens,
        "logits": logits,
        "mlx": version("mlx"),
        "mlx_lm": version("mlx-lm"),
        "dtype": str(model.model.embed_tokens.scales.dtype)
        if hasattr(model.model.embed_tokens, "scales")
        else str(model.model.embed_tokens.weight.dtype),
    }
    json.dump(out, sys.stdout, allow_nan=False)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
