"""scripts/gpu/gputime_summary.py on stand-in ncu CSVs: the per-step difference, the per-kernel
split past the shorter run's launches of each kernel (a first step's one-off cost and launches
hoisted ahead of the steps kept out), no split when the runs launched different kernels, a
clear error (no traceback) when the longer run has no more kernels, .xz input; --prefill: one
run's kernels to its first ArgMax by name, an error without one."""
import lzma, os, subprocess, sys, tempfile, unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUMMARY = os.path.join(ROOT, "scripts", "gpu", "gputime_summary.py")
HEADER = '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'


def csv_text(kernels):
    """ncu's --csv output for (name, ns) kernels, with the lines ncu and the program add."""
    rows = "".join(f'"{i}","{name}","gpu__time_duration.sum","ns","{ns:,}"\n'
                   f'"{i}","{name}","other__metric","ns","999"\n' for i, (name, ns) in enumerate(kernels))
    return "==PROF== Connected\n{\"program\": 1}\n" + HEADER + rows


def prefill(ks):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "run.csv")
        with open(path, "w") as f:
            f.write(csv_text(ks))
        p = subprocess.run([sys.executable, SUMMARY, "--prefill", path], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr


def run(short, long, *extra, xz=False):
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for tag, ks in (("short", short), ("long", long)):
            path = os.path.join(d, tag + (".csv.xz" if xz else ".csv"))
            with (lzma.open if xz else open)(path, "wt") as f:
                f.write(csv_text(ks))
            paths.append(path)
        p = subprocess.run([sys.executable, SUMMARY, *paths, *extra], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr


PREFILL = [("void mlx::gemm<float>(const float *)", 1_000_000), ("void mlx::copy_v<float>(float *)", 3_000)]
STEP = [("void mlx::gemm<float>(const float *)", 10_000), ("void mlx::copy_v<float>(float *)", 500_000)]


class GputimeSummary(unittest.TestCase):
    def test_difference_and_split(self):
        rc, out, err = run(PREFILL + STEP, PREFILL + STEP * 3, "2", xz=True)
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], "shorter run: 4 kernels, 1.513 ms; 2 decode steps more: 8 kernels, 2.533 ms")
        self.assertEqual(lines[1], "one decode step: 2.0 kernels, 0.510 ms of kernel time")
        self.assertIn("by kernel (2 kernels, 0.510 ms;", lines[2])
        self.assertEqual(lines[4].split(), ["1.0", "500.0", "98.0%", "500.0", "500.0", "mlx::copy_v<float>"])
        self.assertEqual(lines[5].split(), ["1.0", "10.0", "2.0%", "10.0", "10.0", "mlx::gemm<float>"])

    def test_steps_added_before_a_common_end(self):
        # op-bench: setup, the calls, then its reference check, in both runs.
        check = [("void mlx::reference<float>(float *)", 7_000)]
        rc, out, err = run(PREFILL + STEP + check, PREFILL + STEP * 3 + check, "2", "gather_qmm call")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[1], "one gather_qmm call: 2.0 kernels, 0.510 ms of kernel time")
        self.assertIn("per gather_qmm call, by kernel (2 kernels, 0.510 ms;", out)
        self.assertNotIn("reference", out)

    def test_first_step_cost_and_hoisted_launches_stay_out(self):
        # op-bench under MLX: each call's arange launched ahead of all calls, and the first
        # call's setup kernel faulting in host-made inputs (144 against 9 us, 2026-12-06).
        arange = ("void mlx::arange<int>(int *)", 2_000)
        setup = "void gather_qmm_setup(int *)"
        call = lambda us: [(setup, us * 1_000), ("void mlx::gemm<float>(const float *)", 100_000)]
        rc, out, err = run(PREFILL + [arange] + call(144), PREFILL + [arange] * 3 + call(144) + call(9) * 2,
                           "2", "gather_qmm call")
        self.assertEqual(rc, 0, err)
        rows = {line.split()[-1]: line.split()[:5] for line in out.splitlines()[4:]}
        self.assertEqual(rows["gather_qmm_setup"], ["1.0", "9.0", "8.1%", "9.0", "9.0"])
        self.assertEqual(rows["mlx::arange<int>"], ["1.0", "2.0", "1.8%", "2.0", "2.0"])
        self.assertEqual(rows["mlx::gemm<float>"][:2], ["1.0", "100.0"])

    def test_different_launches_give_no_split(self):
        # Neither begins nor ends as the shorter run: no one place where kernels were added.
        other = [(n.replace("gemm", "gemv"), t) for n, t in PREFILL]
        last = ("void mlx::argmax<float>(float *)", STEP[-1][1])
        rc, out, _ = run(PREFILL + STEP, other + STEP * 4 + STEP[:-1] + [last])
        self.assertEqual(rc, 0)
        self.assertIn("one decode step: 2.0 kernels", out)
        self.assertIn("no per-kernel split", out)
        self.assertNotIn("by kernel", out)

    def test_no_more_kernels_is_an_error(self):
        rc, out, err = run(PREFILL + STEP, PREFILL + STEP)
        self.assertNotEqual(rc, 0)
        self.assertEqual(out, "")
        self.assertIn("gputime: ncu timed 4 and 4 kernels", err)
        self.assertNotIn("Traceback", err)


    def test_prefill_to_the_first_argmax(self):
        argmax = ("void mlx::arg_reduce_general<float, mlx::ArgMax<float>, 1024, 4>(float *)", 20_000)
        rc, out, err = prefill(PREFILL + PREFILL[:1] + [argmax] + STEP + [argmax])
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[0], "prefill: 4 kernels to the first token's ArgMax, 2.023 ms of kernel time")
        self.assertIn("per prefill, by kernel (3 kernels, 2.023 ms;", lines[1])
        self.assertEqual(lines[3].split(), ["2.0", "2000.0", "98.9%", "1000.0", "1000.0", "mlx::gemm<float>"])
        self.assertEqual(lines[4].split()[:3], ["1.0", "20.0", "1.0%"])
        self.assertEqual(len(lines), 6)

    def test_prefill_without_argmax_is_an_error(self):
        rc, out, err = prefill(PREFILL + STEP)
        self.assertNotEqual(rc, 0)
        self.assertIn("gputime: no ArgMax kernel", err)
        self.assertNotIn("Traceback", err)


if __name__ == "__main__":
    unittest.main()
