#!/usr/bin/env python3
"""GPU kernel time of one step (a decode step, one op call), from two ncu runs of one command.

usage: gputime_summary.py SHORT.csv LONG.csv [STEPS [UNIT]]

SHORT and LONG are `ncu --metrics gpu__time_duration.sum --csv` of the same command, LONG doing
STEPS (default 4) steps more: a generate call with 2 and with 6 new tokens, or an op-bench
request of 1 and of 3 calls (STEPS 2, UNIT "gather_qmm call"). UNIT names a step [decode step].
Their difference is STEPS steps: the kernel count and kernel time per step, then, when LONG is
SHORT with kernels added in one place (the same command, so the same launches in the same
order: at the end for generate, before op-bench's reference check for a request), the added
kernels grouped by name. A .xz file is read as such.
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


def added(short, long):
    """LONG's kernels between those it begins and ends with as SHORT does (by name), or None
    where SHORT is not LONG without them."""
    names, longer = [n for n, _ in short], [n for n, _ in long]
    first = 0
    while first < len(names) and names[first] == longer[first]:
        first += 1
    last = 0
    while last < len(names) - first and names[-1 - last] == longer[-1 - last]:
        last += 1
    return long[first:len(long) - last] if first + last == len(names) else None


def ms(ks):
    return sum(t for _, t in ks) / 1e6


def summary(short, long, steps, unit):
    if len(long) <= len(short):
        raise ValueError(f"ncu timed {len(short)} and {len(long)} kernels: no {unit} to difference")
    lines = [
        f"shorter run: {len(short)} kernels, {ms(short):.3f} ms; "
        f"{steps} {unit}s more: {len(long)} kernels, {ms(long):.3f} ms",
        f"one {unit}: {(len(long) - len(short)) / steps:.1f} kernels, "
        f"{(ms(long) - ms(short)) / steps:.3f} ms of kernel time",
    ]
    tail = added(short, long)
    if tail is None:
        lines.append("the runs launched different kernels: no per-kernel split")
        return lines
    if len(tail) % steps == 0:
        n = len(tail) // steps
        per_step = [ms(tail[i * n:(i + 1) * n]) for i in range(steps)]
        lines.append(f"each of the last {steps} {unit}s: " + ", ".join(f"{t:.3f}" for t in per_step) + " ms")
    by_name = collections.defaultdict(list)
    for name, t in tail:
        by_name[short_name(name)].append(t)
    total = sum(t for _, t in tail)
    lines.append(f"per {unit}, by kernel ({len(by_name)} kernels; time: mean per {unit}, "
                 "min and max per launch):")
    lines.append(f"{'launches':>8} {'us':>8} {'share':>6} {'min us':>8} {'max us':>8}  kernel")
    for name, ts in sorted(by_name.items(), key=lambda kv: -sum(kv[1])):
        lines.append(f"{len(ts) / steps:8.1f} {sum(ts) / steps / 1e3:8.1f} {100 * sum(ts) / total:5.1f}% "
                     f"{min(ts) / 1e3:8.1f} {max(ts) / 1e3:8.1f}  {name}")
    return lines


def main(argv):
    if len(argv) not in (3, 4, 5):
        sys.exit(__doc__.strip().splitlines()[2])
    steps = int(argv[3]) if len(argv) >= 4 else 4
    unit = argv[4] if len(argv) == 5 else "decode step"
    try:
        print("\n".join(summary(kernels(argv[1]), kernels(argv[2]), steps, unit)))
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"gputime: {e}")


if __name__ == "__main__":
    main(sys.argv)
