#!/usr/bin/env python3
"""GPU kernel time of one step (a decode step, one op call), from two ncu runs of one command.

usage: gputime_summary.py SHORT.csv LONG.csv [STEPS [UNIT]]
       gputime_summary.py --prefill RUN.csv

SHORT and LONG are `ncu --metrics gpu__time_duration.sum --csv` of the same command, LONG doing
STEPS (default 4) steps more: a generate call with 2 and with 6 new tokens, or an op-bench
request of 1 and of 3 calls (STEPS 2, UNIT "gather_qmm call"). UNIT names a step [decode step].
Their difference is STEPS steps: the kernel count and kernel time per step, then, when LONG
launches the kernels SHORT does and more of them (no kernel of its own), the added launches
grouped by name: of each name, those after the ones SHORT also made. So the first step's one-off
costs (a first launch faulting in inputs made on the host: 144 against 9 us, 2026-12-06) stay
out of the split, and kernels MLX launches ahead of the steps (the aranges of all calls) keep
their count. With --prefill, RUN's kernels up to the first token's greedy sampling (its first
ArgMax launch, included) grouped by name: a generate call's prefill. A .xz file is read as such.
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
    """LONG's launches past SHORT's, by name: of each name, those after its first as many as
    SHORT made; None where LONG launches a kernel SHORT does not, or fewer of one."""
    counts = collections.Counter(n for n, _ in short)
    by_name = collections.defaultdict(list)
    for name, t in long:
        by_name[name].append(t)
    if any(name not in counts or len(ts) < counts[name] for name, ts in by_name.items()):
        return None
    return {name: ts[counts[name]:] for name, ts in by_name.items() if len(ts) > counts[name]}


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
    return lines + by_kernel([(name, t) for name, ts in tail.items() for t in ts], steps, unit)


def by_kernel(launches, steps, unit):
    """(name, ns) launches grouped by kernel name: count and time per step, share, min and max per
    launch."""
    by_name = collections.defaultdict(list)
    for name, t in launches:
        by_name[short_name(name)].append(t)
    total = sum(sum(ts) for ts in by_name.values())
    lines = [f"per {unit}, by kernel ({len(by_name)} kernels, {total / steps / 1e6:.3f} ms; "
             f"time: mean per {unit}, min and max per launch):",
             f"{'launches':>8} {'us':>8} {'share':>6} {'min us':>8} {'max us':>8}  kernel"]
    for name, ts in sorted(by_name.items(), key=lambda kv: -sum(kv[1])):
        lines.append(f"{len(ts) / steps:8.1f} {sum(ts) / steps / 1e3:8.1f} {100 * sum(ts) / total:5.1f}% "
                     f"{min(ts) / 1e3:8.1f} {max(ts) / 1e3:8.1f}  {name}")
    return lines


def prefill(run):
    """RUN's kernels up to its first ArgMax launch, included, by name."""
    end = next((i for i, (name, _) in enumerate(run) if "ArgMax" in name), None)
    if end is None:
        raise ValueError("no ArgMax kernel: not a greedy generate run, or its start was not profiled")
    head = run[: end + 1]
    return [f"prefill: {len(head)} kernels to the first token's ArgMax, {ms(head):.3f} ms of kernel time"] + \
        by_kernel(head, 1, "prefill")


def main(argv):
    try:
        if len(argv) == 3 and argv[1] == "--prefill":
            lines = prefill(kernels(argv[2]))
        elif len(argv) in (3, 4, 5):
            steps = int(argv[3]) if len(argv) >= 4 else 4
            unit = argv[4] if len(argv) == 5 else "decode step"
            lines = summary(kernels(argv[1]), kernels(argv[2]), steps, unit)
        else:
            sys.exit("\n".join(__doc__.strip().splitlines()[2:4]))
        print("\n".join(lines))
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"gputime: {e}")


if __name__ == "__main__":
    main(sys.argv)
