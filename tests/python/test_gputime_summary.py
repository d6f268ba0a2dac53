"""scripts/gpu/gputime_summary.py on stand-in ncu CSVs: the per-step difference, the per-kernel
split past the shorter run's kernels, no split when the runs launched different kernels, a
clear error (no traceback) when the longer run has no more kernels, .xz input."""
import lzma, os, subprocess, sys, tempfile, unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUMMARY = os.path.join(ROOT, "scripts", "gpu", "gputime_summary.py")
HEADER = '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"\n'


def csv_text(kernels):
    """ncu's --csv output for (name, ns) kernels, with the lines ncu and the program add."""
    rows = "".join(f'"{i}","{name}","gpu__time_duration.sum","ns","{ns:,}"\n'
                   f'"{i}","{name}","other__metric","ns","999"\n' for i, (name, ns) in enumerate(kernels))
    return "==PROF== Connected\n{\"program\": 1}\n" + HEADER + rows


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
        self.assertEqual(lines[2], "each of the last 2 decode steps: 0.510, 0.510 ms")
        self.assertEqual(lines[5].split(), ["1.0", "500.0", "98.0%", "500.0", "500.0", "mlx::copy_v<float>"])
        self.assertEqual(lines[6].split(), ["1.0", "10.0", "2.0%", "10.0", "10.0", "mlx::gemm<float>"])

    def test_steps_added_before_a_common_end(self):
        # op-bench: setup, the calls, then its reference check, in both runs.
        check = [("void mlx::reference<float>(float *)", 7_000)]
        rc, out, err = run(PREFILL + STEP + check, PREFILL + STEP * 3 + check, "2", "gather_qmm call")
        self.assertEqual(rc, 0, err)
        lines = out.splitlines()
        self.assertEqual(lines[1], "one gather_qmm call: 2.0 kernels, 0.510 ms of kernel time")
        self.assertEqual(lines[2], "each of the last 2 gather_qmm calls: 0.510, 0.510 ms")
        self.assertIn("per gather_qmm call, by kernel (2 kernels;", out)
        self.assertNotIn("reference", out)

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


if __name__ == "__main__":
    unittest.main()
