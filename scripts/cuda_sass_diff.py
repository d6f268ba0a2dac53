#!/usr/bin/env python3
"""Compiles one CUDA source of MLX twice, pristine and with the series' patches, and compares
the machine code (SASS) of every kernel the pristine file has: a patch that claims to leave the
stock kernels alone must leave them identical, instruction for instruction. Needs no GPU: nvcc,
cuobjdump and nvdisasm (a CUDA toolkit, or NVIDIA's nvcc / nvvm / crt / runtime / cccl /
cuobjdump / nvdisasm wheels) and the archives of MLX's CUDA dependencies (CCCL, NVTX, fmt).

usage: cuda_sass_diff.py FILE [--patches all|ID,...] [--cuda-bin DIR] [--deps DIR] [--arch 90a]
  FILE: a path inside MLX, e.g. mlx/backend/cuda/softmax.cu
Exit status 1 if a pristine kernel's SASS differs or is missing in the patched build."""
import argparse
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent


def mlx_build(*args):
    """The lines `mlx-build ARGS` prints (through scripts/mlx-build)."""
    out = subprocess.run([str(REPO / "scripts/mlx-build"), *args], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"cuda_sass_diff: mlx-build {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout.split("\n")[:-1]


def kernels(sass):
    """Kernel name -> its instructions, addresses and encodings dropped, spacing normalized."""
    out = {}
    for part in re.split(r"\n\s*Function : ", sass)[1:]:
        name, body = part.split("\n", 1)
        lines = (" ".join(re.sub(r"/\*[0-9a-f]{4,}\*/", "", line).split()) for line in body.splitlines())
        out[name.strip()] = [line for line in lines if line]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--patches", default="all")
    ap.add_argument("--cuda-bin", default=os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin"))
    ap.add_argument("--deps", default=os.environ.get("MLX_CUDA_DEPS_ARCHIVES", str(REPO.parent / "shared/cuda/deps")))
    ap.add_argument("--arch", default="90a")
    args = ap.parse_args()
    tools = {t: shutil.which(t, path=args.cuda_bin) for t in ("nvcc", "cuobjdump", "nvdisasm")}
    missing = [t for t, path in tools.items() if path is None]
    if missing:
        sys.exit(f"cuda_sass_diff: {', '.join(missing)} not in {args.cuda_bin} (--cuda-bin)")
    env = dict(os.environ, PATH=args.cuda_bin + os.pathsep + os.environ.get("PATH", ""))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for name in ("cccl", "nvtx3", "fmt"):
            archive = pathlib.Path(args.deps, f"{name}.tar.xz")
            if not archive.is_file():
                sys.exit(f"cuda_sass_diff: {archive} not found (--deps)")
            with tarfile.open(archive) as t:
                t.extractall(tmp / "deps", filter="data")
        trees = {"pristine": tmp / "pristine", "patched": tmp / "patched"}
        for arm, patches in (("pristine", "none"), ("patched", args.patches)):
            mlx_build("source", "--patches", patches, "--dest", str(trees[arm]))
        deps = tmp / "deps"
        found = {}
        for arm, root in trees.items():
            obj = tmp / f"{arm}.o"
            subprocess.run([tools["nvcc"], "-std=c++20", f"-arch=sm_{args.arch}", "--expt-relaxed-constexpr",
                            "--extended-lambda", "-DMLX_USE_CUDA", "-Xcompiler=-fno-strict-aliasing", "-w",
                            f"-I{root}", f"-I{deps}/cccl/include", f"-I{deps}/nvtx3/c/include",
                            f"-I{deps}/fmt/include", "-c", str(root / args.file), "-o", str(obj)],
                           check=True, env=env)
            sass = subprocess.run([tools["cuobjdump"], "-sass", str(obj)], check=True, env=env,
                                  capture_output=True, text=True).stdout
            found[arm] = kernels(sass)
    stock, patched = found["pristine"], found["patched"]
    same = [k for k in stock if patched.get(k) == stock[k]]
    changed = [k for k in stock if k in patched and patched[k] != stock[k]]
    gone = [k for k in stock if k not in patched]
    print(f"{args.file}, sm_{args.arch}, patches {args.patches}: {len(stock)} pristine kernels, "
          f"{len(same)} with identical SASS, {len(changed)} changed, {len(gone)} missing; "
          f"{len(set(patched) - set(stock))} new")
    for k in changed + gone:
        print(f"  {'changed' if k in changed else 'missing'}: {k}")
    return 1 if changed or gone else 0


if __name__ == "__main__":
    sys.exit(main())
