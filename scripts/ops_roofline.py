#!/usr/bin/env python3
"""Achieved bandwidth and arithmetic rate of `mlx-ab ops`' gather_qmm points, against a machine's
limits: the fewest bytes a call must move (every expert's packed weights and scales once, x
read once, the output written once) over its median time, and 2*M*N*K over the same time.

usage: ops_roofline.py [--bandwidth TB/s] [--tflops TFLOP/s] OPS.json...
Defaults: the H200's measured device-to-device copy (4.3 TB/s, read + write) and dense bf16
matrix rate (790 TFLOP/s) from the device notes of this workplace.
"""
import argparse, json

# op-bench's default gather_qmm shape (Qwen3-30B-A3B's experts); a point's `shape` overrides it.
QWEN3_30B_A3B = (128, 2048, 768)
# bits per weight, and bytes of scale/bias data per weight
FORMATS = {"affine4": (4, 2 * 2 / 64), "mxfp4": (4, 1 / 32), "nvfp4": (4, 1 / 16),
           "mxfp8": (8, 1 / 32)}


def bytes_moved(r):
    experts, hidden, width = r.get("shape", QWEN3_30B_A3B)
    n, k = (width, hidden) if r["proj"] == "up" else (hidden, width)
    bits, scale_bytes = FORMATS[r["mode"]]
    rows = experts * r["rows_per_expert"]
    weights = experts * n * k * (bits / 8 + scale_bytes)
    return weights + rows * k * 2 + rows * n * 2  # bf16 x in, bf16 out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bandwidth", type=float, default=4.3)
    ap.add_argument("--tflops", type=float, default=790.0)
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    print("| point | A TB/s | A % of bandwidth | A TFLOP/s | A % of bf16 rate | B TB/s | B TFLOP/s |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for path in args.files:
        for r in json.load(open(path))["results"]:
            if r["op"] != "gather_qmm":
                continue
            b = bytes_moved(r)
            a_bw, b_bw = b / r["a_seconds"] / 1e12, b / r["b_seconds"] / 1e12
            print(f"| {r['mode']} {r['proj']} r={r['rows_per_expert']} | {a_bw:.2f} | "
                  f"{100 * a_bw / args.bandwidth:.0f}% | {r['a_tflops']:.1f} | "
                  f"{100 * r['a_tflops'] / args.tflops:.1f}% | {b_bw:.2f} | {r['b_tflops']:.1f} |")


if __name__ == "__main__":
    main()
