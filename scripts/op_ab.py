#!/usr/bin/env python3
"""A/B of single MLX ops between two builds, side by side in one run.

Starts one `op-bench` worker per arm (ARM/bin/op-bench, with ARM/lib first on its library path
and, if given, its own MLX_PTX_CACHE_DIR), and for every point of the sweep: one warm-up request
per arm, both at once (runtime compilation stays out of the timings), then PAIRS pairs in ABBA
order. With --budget, points that would start after that many seconds are left out and the
report says how many ran. Every reply
carries a digest of the output bits: the two arms must agree at every point, or the run fails
(exit 1). Per point: median seconds per call of each arm, the A/B ratio (above 1: B faster) as
the median of the per-pair ratios with a seeded 95% bootstrap interval, and an exact sign test.

usage: op_ab.py --a DIR --b DIR [--sweep gather_qmm|sdpa|softmax|all] [--only TEXT] [--pairs N] [--budget S]
                [--gather-shape E:H:W] [--rows R,...] [--a-ptx-cache DIR] [--b-ptx-cache DIR] [--json F] [--md F]
Stopped by SIGTERM or SIGINT (a time limit), it reports the points it finished, as a budget
stop does, and exits 3.
Standard library only: it runs on the GPU machine's python3 and on any CPU machine.
"""
import argparse, json, math, os, random, signal, subprocess, sys, time


class Stopped(Exception):
    pass


def stop_on_signal(number, _frame):
    raise Stopped(signal.Signals(number).name)

# The fp modes first: only they take the sorted-rhs kernel whose tile the patch changes on CUDA;
# affine takes qmm_sm80 in both builds (a control).
MODES = ["mxfp4", "nvfp4", "mxfp8", "affine4"]
ROWS_PER_EXPERT = [1, 2, 4, 8, 16, 32, 64, 128, 256]
# Sorted-rhs gather_qmm: experts, hidden size, expert width (default: Qwen3-30B-A3B's).
QWEN3_30B_A3B = (128, 2048, 768)


def gather_points(modes, shape=QWEN3_30B_A3B, rows=ROWS_PER_EXPERT):
    experts, hidden, width = shape
    for mode in modes:
        for proj in ["up", "down"]:
            for r in rows:
                # Enough calls per graph that one timing spans milliseconds, not launch latency.
                calls = max(1, 32 // r)
                flops = 2 * experts * r * hidden * width
                point = {"op": "gather_qmm", "mode": mode, "proj": proj, "rows_per_expert": r,
                         "args": f"gather_qmm {mode} {proj} {r} {experts} {hidden} {width}",
                         "calls": calls, "flops": flops}
                if shape != QWEN3_30B_A3B:
                    point["shape"] = list(shape)
                yield point


def sdpa_points():
    for dtype, heads, q, kv in [("float32", 8, 2048, 2048), ("float32", 8, 8192, 8192),
                                ("float32", 8, 512, 8192), ("float32", 8, 512, 32768),
                                ("float32", 1, 32768, 32768), ("bfloat16", 8, 8192, 8192)]:
        yield {"op": "sdpa", "dtype": dtype, "heads": heads, "q_len": q, "kv_len": kv,
               "args": f"sdpa {dtype} {heads} {q} {kv}", "calls": 1,
               "flops": 4 * heads * q * kv * 128}


SOFTMAX_SHAPES = [(8, 2048, 2048), (8, 8192, 8192), (1, 32768, 32768), (8, 512, 8192),
                  (8, 512, 32768)]


def softmax_points(shapes=SOFTMAX_SHAPES):
    """The causal softmax stage alone, on held float32 scores (bytes: the fewest a kernel must
    move, the visible scores read once and every output written once)."""
    for heads, q, kv in shapes:
        visible = sum(min(kv, i + kv - q + 1) for i in range(q))
        yield {"op": "softmax", "dtype": "float32", "heads": heads, "q_len": q, "kv_len": kv,
               "args": f"softmax float32 {heads} {q} {kv}", "calls": 1, "flops": 0,
               "bytes": 4 * heads * (visible + q * kv)}


class Worker:
    def __init__(self, name, prefix, ptx_cache):
        exe = os.path.join(prefix, "bin", "op-bench")
        if not os.access(exe, os.X_OK):
            sys.exit(f"op_ab: {exe} is not an executable (pack the arm with op-bench)")
        env = dict(os.environ)
        env["LD_LIBRARY_PATH"] = os.path.join(prefix, "lib") + ":" + env.get("LD_LIBRARY_PATH", "")
        if ptx_cache:
            env["MLX_PTX_CACHE_DIR"] = ptx_cache
        self.name = name
        self.proc = subprocess.Popen([exe], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env=env, text=True, bufsize=1)

    def ask(self, line):
        self.send(line)
        return self.receive(line)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def receive(self, line):
        reply = self.proc.stdout.readline().split()
        if not reply:
            raise RuntimeError(f"worker {self.name} exited (status {self.proc.wait()}) on: {line}")
        if reply[0] != "ok":
            raise RuntimeError(f"worker {self.name}: {' '.join(reply[1:])} (request: {line})")
        return float(reply[1]), int(reply[2]), reply[3]

    def close(self, kill=False):
        """Asks the worker to quit; `kill`: stopped mid-request, it would not read that."""
        if kill:
            self.proc.kill()
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.close()
        except OSError:
            pass
        self.proc.wait(timeout=30)


def median(v):
    s = sorted(v)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def bootstrap(ratios, seed=1, rounds=2000):
    rng = random.Random(seed)
    meds = sorted(median([rng.choice(ratios) for _ in ratios]) for _ in range(rounds))
    return meds[int(0.025 * rounds)], meds[int(0.975 * rounds) - 1]


def sign_test(ratios):
    wins = sum(r > 1 for r in ratios)
    losses = sum(r < 1 for r in ratios)
    n = wins + losses
    if n == 0:
        return wins, losses, 1.0
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2 ** n
    return wins, losses, min(1.0, 2 * tail)


def measure(point, a, b, pairs, reps):
    request = f"{point['args']} {point['calls']}"
    digests = set()
    for w in (a, b):  # warm-up, both arms at once: JIT compilation, weight quantization
        w.send(f"{request} 1")
    for w in (a, b):
        digests.add(w.receive(f"{request} 1")[2])
    times = {"a": [], "b": []}
    peaks = {"a": 0, "b": 0}
    for pair in range(pairs):
        order = [("a", a), ("b", b)] if pair % 2 == 0 else [("b", b), ("a", a)]
        for key, w in order:
            t, peak, digest = w.ask(f"{request} {reps}")
            times[key].append(t)
            peaks[key] = max(peaks[key], peak)
            digests.add(digest)
    ratios = [ta / tb for ta, tb in zip(times["a"], times["b"])]
    lo, hi = bootstrap(ratios)
    wins, losses, p = sign_test(ratios)
    ta, tb = median(times["a"]), median(times["b"])
    return dict(point, a_seconds=ta, b_seconds=tb, ratio=median(ratios), ci=[lo, hi],
                b_faster=wins, a_faster=losses, p=p, identical=len(digests) == 1,
                a_tflops=point["flops"] / ta / 1e12, b_tflops=point["flops"] / tb / 1e12,
                b_gbps=point.get("bytes", 0) / tb / 1e9,
                a_peak_bytes=peaks["a"], b_peak_bytes=peaks["b"], times=times)


def label(r):
    if r["op"] == "gather_qmm":
        shape = " E={} H={} W={}".format(*r["shape"]) if "shape" in r else ""
        return f"gather_qmm {r['mode']} {r['proj']} r={r['rows_per_expert']}{shape}"
    return f"{r['op']} {r['dtype']} H={r['heads']} q={r['q_len']} kv={r['kv_len']}"


def markdown(results, meta):
    lines = [f"A: `{meta['a']}`  B: `{meta['b']}`  pairs: {meta['pairs']}, reps per request: "
             f"{meta['reps']}, points: {meta['points_run']} of {meta['points_planned']}"
             f"{' (stopped by ' + meta['stopped_by'] + ')' if 'stopped_by' in meta else ''}. Ratio = A time / B time (above 1: B faster), median of pairs "
             "[95% bootstrap]; identical: output bits equal in every reply of both arms.", "",
             "| point | A ms/call | B ms/call | A/B | 95% CI | B faster/slower (p) | A TFLOP/s | B GB/s (fewest bytes) | identical |",
             "|---|---:|---:|---:|---|---|---:|---:|---|"]
    for r in results:
        lines.append(f"| {label(r)} | {r['a_seconds'] * 1e3:.4f} | {r['b_seconds'] * 1e3:.4f} | "
                     f"{r['ratio']:.3f} | [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}] | "
                     f"{r['b_faster']}/{r['a_faster']} (p = {r['p']:.3g}) | {r['a_tflops']:.2f} | "
                     f"{r['b_gbps']:.1f} | "
                     f"{'yes' if r['identical'] else '**NO**'} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--sweep", default="all", choices=["gather_qmm", "sdpa", "softmax", "all"])
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--pairs", type=int, default=6)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--a-ptx-cache")
    ap.add_argument("--b-ptx-cache")
    ap.add_argument("--budget", type=float, help="seconds after which no new point starts")
    ap.add_argument("--only", help="run just the points whose label contains this text")
    ap.add_argument("--softmax-shapes", help="softmax sweep shapes HEADS:Q_LEN:KV_LEN,... (a "
                    "smaller sweep for slow machines)")
    ap.add_argument("--gather-shape", default=":".join(map(str, QWEN3_30B_A3B)),
                    help="gather_qmm sweep EXPERTS:HIDDEN:WIDTH (default Qwen3-30B-A3B's)")
    ap.add_argument("--rows", default=",".join(map(str, ROWS_PER_EXPERT)),
                    help="gather_qmm sweep rows per expert, comma separated")
    ap.add_argument("--json")
    ap.add_argument("--md")
    args = ap.parse_args()
    points = []
    if args.sweep in ("gather_qmm", "all"):
        shape = tuple(int(v) for v in args.gather_shape.split(":"))
        rows = [int(v) for v in args.rows.split(",")]
        points += list(gather_points(args.modes.split(","), shape, rows))
    if args.sweep in ("sdpa", "all"):
        points += list(sdpa_points())
    if args.sweep in ("softmax", "all"):
        shapes = SOFTMAX_SHAPES
        if args.softmax_shapes:
            shapes = [tuple(int(v) for v in s.split(":")) for s in args.softmax_shapes.split(",")]
        points += list(softmax_points(shapes))
    if args.only:
        points = [p for p in points if args.only in label(p)]
    a, b = Worker("a", args.a, args.a_ptx_cache), Worker("b", args.b, args.b_ptx_cache)
    results = []
    began = time.time()
    stopped = None
    signal.signal(signal.SIGTERM, stop_on_signal)
    signal.signal(signal.SIGINT, stop_on_signal)
    try:
        for point in points:
            if args.budget and time.time() - began > args.budget:
                print(f"op_ab: budget of {args.budget:.0f}s spent; {len(points) - len(results)} "
                      "points left out", flush=True)
                break
            start = time.time()
            r = measure(point, a, b, args.pairs, args.reps)
            results.append(r)
            print(f"{label(r)}: A {r['a_seconds'] * 1e3:.4f} ms, B {r['b_seconds'] * 1e3:.4f} ms, "
                  f"A/B {r['ratio']:.3f} [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}] "
                  f"identical={r['identical']} ({time.time() - start:.1f}s)", flush=True)
    except Stopped as e:
        # A time limit, not a failure: the finished points are measured; the one cut off is not.
        stopped = str(e)
        print(f"op_ab: stopped by {stopped}; reporting the {len(results)} finished points", flush=True)
    except RuntimeError as e:
        print(f"op_ab: {e}", file=sys.stderr)
        sys.exit(2)  # no report from a failed run
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        a.close(kill=stopped is not None)
        b.close(kill=stopped is not None)
    meta = {"a": args.a, "b": args.b, "pairs": args.pairs, "reps": args.reps,
            "points_planned": len(points), "points_run": len(results),
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    if stopped:
        meta["stopped_by"] = stopped
    md = markdown(results, meta)
    print(md)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "results": results}, f, indent=1)
    if args.md:
        with open(args.md, "w") as f:
            f.write(md)
    if not all(r["identical"] for r in results):
        sys.exit(1)
    sys.exit(3 if stopped else 0)


if __name__ == "__main__":
    main()
