#!/usr/bin/env python3
"""GPU kernel time of one decode step, from two ncu runs of the same generate call.

usage: gputime_summary.py SHORT.csv LONG.csv [STEPS]

SHORT and LONG are `ncu --metrics gpu__time_duration.sum --csv` of a generate call with 2 and
with 2 + STEPS (default 4) new tokens. Their difference is STEPS decode steps: the kernel count
and kernel time per step, then, when LONG's first kernels are SHORT's (the same call, so the
same launches in the same order), the kernels past them grouped by name. A .xz file is read
as such.
"""
import collections
import csv
import lzma
import sys


def kernels(path):
    """(name, nanoseconds) of every kernel ncu timed, in launch order."""
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as f:
        rows = csv.DictReader(line for line in f if line.startswith('"'))
        return [(r["Kernel Name"], float(r["Metric Value"].replace(",", "")))
                for r in rows if r["Metric Name"] == "gpu__time_duration.sum"]


def short_name(name, width=96):
    """The kernel's name without its parameter list, cut to width."""
    head = name.removeprefix("void ").split("(")[0]
    return head if len(head) <= width else head[: width - 3] + "..."


def ms(ks):
    return sum(t for _, t in ks) / 1e6


def summary(short, long, steps):
    if len(long) <= len(short):
        raise ValueError(f"ncu timed {len(short)} and {len(long)} kernels: no decode step to difference")
    lines = [
        f"2 new tokens: {len(short)} kernels, {ms(short):.3f} ms; "
        f"{2 + steps} new tokens: {len(long)} kernels, {ms(long):.3f} ms",
        f"one decode step: {(len(long) - len(short)) / steps:.1f} kernels, "
        f"{(ms(long) - ms(short)) / steps:.3f} ms of kernel time",
    ]
    if [n for n, _ in long[: len(short)]] != [n for n, _ in short]:
        lines.append("the runs launched different kernels: no per-kernel split")
        return lines
    tail = long[len(short):]
    if len(tail) % steps == 0:
        n = len(tail) // steps
        per_step = [ms(tail[i * n:(i + 1) * n]) for i in range(steps)]
        lines.append("each of the last %d steps: %s ms" % (steps, ", ".join(f"{t:.3f}" for t in per_step)))
    by_name = collections.defaultdict(list)
    for name, t in tail:
        by_name[short_name(name)].append(t)
    total = sum(t for _, t in tail)
    lines.append(f"per decode step, by kernel ({len(by_name)} kernels; time: mean per step, "
                 "min and max per launch):")
    lines.append(f"{'launches':>8} {'us':>8} {'share':>6} {'min us':>8} {'max us':>8}  kernel")
    for name, ts in sorted(by_name.items(), key=lambda kv: -sum(kv[1])):
        lines.append(f"{len(ts) / steps:8.1f} {sum(ts) / steps / 1e3:8.1f} {100 * sum(ts) / total:5.1f}% "
                     f"{min(ts) / 1e3:8.1f} {max(ts) / 1e3:8.1f}  {name}")
    return lines


def main(argv):
    if len(argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[2])
    steps = int(argv[3]) if len(argv) == 4 else 4
    try:
        print("\n".join(summary(kernels(argv[1]), kernels(argv[2]), steps)))
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"gputime: {e}")


if __name__ == "__main__":
    main(sys.argv)
