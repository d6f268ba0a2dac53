#!/usr/bin/env python3
"""One Markdown row per finished e2e run (the JSON reports mlx-ab wrote into DIR): each arm by
the label mlx-ab gave it (patches, extra patches, environment), the ratios and the outputs."""
import json
import pathlib
import sys


def ratio(r):
    lo, hi = r["ci95"]
    s = r["sign_test"]
    return f'{r["median"]:.3f} [{lo:.3f}, {hi:.3f}] ({s["greater"]}/{s["less"]})'


def main(folder):
    print("| run | preset | prompt / chunk / gen | A | B | outputs | A prefill tok/s | prefill B/A | "
          "A decode tok/s | decode B/A | peak B/A |")
    print("|---|---|---|---|---|---|---:|---|---:|---|---|")
    for path in sorted(pathlib.Path(folder).glob("*.json")):
        d = json.loads(path.read_text())
        w, a, b, r = d["workload"], d["arms"]["A"], d["arms"]["B"], d["ratio"]
        shape = f'{w["prompt_len"]} / {w["prefill_chunk"]} / {w["gen_len"]}'
        print(f'| {path.stem} | {w["preset"]} | {shape} | {a["label"]} | {b["label"]} | {d["verdict"]} | '
              f'{a["prefill_tps"]["median"]:.0f} | {ratio(r["prefill_tps"])} | '
              f'{a["decode_tps"]["median"]:.1f} | {ratio(r["decode_tps"])} | '
              f'{r["peak_memory_bytes"]["median"]:.3f} |')


if __name__ == "__main__":
    main(sys.argv[1])
