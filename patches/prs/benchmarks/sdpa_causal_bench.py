"""Causal scaled dot-product attention, prefill-shaped.

mx.fast.scaled_dot_product_attention(..., mask="causal") at query lengths equal to the key
length (prefill) and shorter (a chunk of a longer prompt, aligned to the last keys). Where no
fused kernel takes the call (the CPU; float32 on CUDA) MLX runs its unfused fallback: scores,
the causal mask, softmax, the second product. Defaults: 8 heads of 128, float32.

    python sdpa_causal_bench.py --device gpu
    python sdpa_causal_bench.py --device cpu --shapes 8:1024:1024,8:512:4096
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


def causal_sdpa(q, k, v):
    return mx.fast.scaled_dot_product_attention(
        q, k, v, scale=q.shape[-1] ** -0.5, mask="causal"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=["cpu", "gpu"], default="gpu")
    parser.add_argument(
        "--shapes",
        default="8:2048:2048,8:8192:8192,1:32768:32768,8:512:8192",
        help="HEADS:QUERY_LENGTH:KEY_LENGTH, comma separated",
    )
    parser.add_argument("--head-dim", type=int, default=128)
    parser.add_argument("--dtypes", default="float32")
    parser.add_argument("--iters", type=int, default=20)
    args = parser.parse_args()
    mx.set_default_device(mx.cpu if args.device == "cpu" else mx.gpu)
    mx.random.seed(0)

    for dtype_name in args.dtypes.split(","):
        dtype = getattr(mx, dtype_name)
        for shape in args.shapes.split(","):
            heads, q_len, k_len = map(int, shape.split(":"))
            q = mx.random.normal((1, heads, q_len, args.head_dim)).astype(dtype)
            k = mx.random.normal((1, heads, k_len, args.head_dim)).astype(dtype)
            v = mx.random.normal((1, heads, k_len, args.head_dim)).astype(dtype)
            mx.eval(q, k, v)
            msg = f"causal sdpa {dtype_name} heads={heads} q={q_len} k={k_len} d={args.head_dim}"
            time_fn(causal_sdpa, q, k, v, msg=msg, iters=args.iters)


if __name__ == "__main__":
    main()
