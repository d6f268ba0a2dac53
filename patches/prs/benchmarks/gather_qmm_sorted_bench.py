"""Sorted gather_qmm as mixture-of-experts layers call it.

mlx-lm's SwitchGLU sorts a layer's rows by expert (from 64 indices on), so each expert's rows
are contiguous and gather_qmm gets rhs_indices in order and sorted_indices=True. This times
that call for the up (hidden -> width) and down (width -> hidden) projections at several rows
per expert, every expert with the same rows. Defaults: Qwen3-30B-A3B's experts (128, hidden
2048, width 768), 4-bit affine, bfloat16.

    python gather_qmm_sorted_bench.py --device gpu
    python gather_qmm_sorted_bench.py --device cpu --experts 16 --dtypes bfloat16,float32
"""

import argparse
import time

import mlx.core as mx


def time_fn(fn, *args, msg, iters):
    # MLX's benchmarks/python/time_utils.py form, with the iterations as an option.
    print(f"Timing {msg} ...", end=" ", flush=True)
    for _ in range(max(2, iters // 10)):
        mx.eval(fn(*args))
    tic = time.perf_counter()
    for _ in range(iters):
        mx.eval(fn(*args))
    msec = 1e3 * (time.perf_counter() - tic) / iters
    print(f"{msec:.5f} msec", flush=True)


def sorted_gather_qmm(x, w, idx, args):
    return mx.gather_qmm(
        x,
        *w,
        transpose=True,
        rhs_indices=idx,
        sorted_indices=True,
        group_size=args.group_size,
        bits=args.bits,
        mode=args.mode,
    )


def quantized_experts(rows, cols, dtype, args):
    w = mx.random.normal((args.experts, rows, cols)).astype(dtype) / cols**0.5
    q = mx.quantize(w, group_size=args.group_size, bits=args.bits, mode=args.mode)
    return tuple(q) + ((None,) if len(q) == 2 else ())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=["cpu", "gpu"], default="gpu")
    parser.add_argument("--experts", type=int, default=128)
    parser.add_argument("--hidden", type=int, default=2048)
    parser.add_argument("--width", type=int, default=768)
    parser.add_argument("--rows", default="1,4,16,64,256", help="rows per expert")
    parser.add_argument("--dtypes", default="bfloat16")
    parser.add_argument("--mode", default="affine")
    parser.add_argument("--bits", type=int, default=4)
    parser.add_argument("--group-size", type=int, default=64)
    parser.add_argument("--iters", type=int, default=50)
    args = parser.parse_args()
    mx.set_default_device(mx.cpu if args.device == "cpu" else mx.gpu)
    mx.random.seed(0)

    for dtype_name in args.dtypes.split(","):
        dtype = getattr(mx, dtype_name)
        up = quantized_experts(args.width, args.hidden, dtype, args)
        down = quantized_experts(args.hidden, args.width, dtype, args)
        for rows in map(int, args.rows.split(",")):
            idx = mx.repeat(mx.arange(args.experts, dtype=mx.uint32), rows)
            n = args.experts * rows
            x_up = mx.random.normal((n, 1, args.hidden)).astype(dtype)
            x_down = mx.random.normal((n, 1, args.width)).astype(dtype)
            mx.eval(idx, x_up, x_down, up, down)
            label = f"{args.mode}{args.bits} {dtype_name} rows/expert={rows}"
            time_fn(sorted_gather_qmm, x_up, up, idx, args, msg=f"up {label}", iters=args.iters)
            time_fn(sorted_gather_qmm, x_down, down, idx, args, msg=f"down {label}", iters=args.iters)


if __name__ == "__main__":
    main()
