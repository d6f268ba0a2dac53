"""scripts/op_ab.py's verdicts, with stand-in workers (shell scripts speaking op-bench's
protocol): identical digests pass, one differing digest fails the run, a worker error leaves
no report, a run stopped by SIGTERM reports the points it finished. Run by scripts/test-all: python3 -m unittest discover -s tests/python."""
import json, os, subprocess, sys, tempfile, unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OP_AB = os.path.join(ROOT, "scripts", "op_ab.py")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import op_ab  # noqa: E402


def fake_arm(root, name, reply):
    """An arm whose op-bench answers every request with `reply` (a printf format)."""
    bin_dir = os.path.join(root, name, "bin")
    os.makedirs(bin_dir)
    os.makedirs(os.path.join(root, name, "lib"))
    exe = os.path.join(bin_dir, "op-bench")
    with open(exe, "w") as f:
        f.write("#!/bin/sh\nwhile read -r line; do\n"
                "  [ \"$line\" = quit ] && exit 0\n"
                f"  printf '{reply}\\n'\ndone\n")
    os.chmod(exe, 0o755)
    return os.path.join(root, name)


def run(a_reply, b_reply):
    """op_ab.py over two stand-in arms: (exit status, stdout, stderr, the JSON report or None)."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        p = subprocess.run([sys.executable, OP_AB, "--a", fake_arm(d, "a", a_reply),
                            "--b", fake_arm(d, "b", b_reply), "--sweep", "sdpa",
                            "--only", "q=2048", "--pairs", "2", "--json", out],
                           capture_output=True, text=True, timeout=60)
        report = None
        if os.path.exists(out):
            with open(out) as f:
                report = json.load(f)
        return p.returncode, p.stdout, p.stderr, report


class OpAbVerdicts(unittest.TestCase):
    def test_equal_digests_pass_and_ratio_is_a_over_b(self):
        rc, _, err, report = run("ok 2.0e-3 100 00000000deadbeef", "ok 1.0e-3 100 00000000deadbeef")
        self.assertEqual(rc, 0, err)
        self.assertTrue(report["results"][0]["identical"])
        self.assertAlmostEqual(report["results"][0]["ratio"], 2.0)

    def test_one_differing_digest_fails_the_run(self):
        rc, out, err, report = run("ok 1.0e-3 100 00000000deadbeef", "ok 1.0e-3 100 00000000deadbeee")
        self.assertEqual(rc, 1, err)
        self.assertFalse(report["results"][0]["identical"])
        self.assertIn("**NO**", out)

    def test_a_worker_error_leaves_no_report(self):
        rc, _, err, report = run("ok 1.0e-3 100 00000000deadbeef", "error [sdpa] out of memory")
        self.assertEqual(rc, 2)
        self.assertIn("out of memory", err)
        self.assertIsNone(report)

    def test_sigterm_reports_the_finished_points_and_exits_3(self):
        with tempfile.TemporaryDirectory() as d:
            # Every arm answers the first point's requests (warm-up + 2 pairs), then hangs.
            hang = "ok 1.0e-3 100 00000000deadbeef"
            arms = []
            for name in "ab":
                arm = fake_arm(d, name, hang)
                exe = os.path.join(arm, "bin", "op-bench")
                with open(exe, "w") as f:
                    f.write("#!/bin/sh\nn=0\nwhile read -r line; do\n"
                            "  [ \"$line\" = quit ] && exit 0\n  n=$((n + 1))\n"
                            f"  [ $n -gt 3 ] && sleep 600\n  printf '{hang}\\n'\ndone\n")
                arms.append(arm)
            out = os.path.join(d, "r.json")
            p = subprocess.Popen([sys.executable, OP_AB, "--a", arms[0], "--b", arms[1],
                                  "--sweep", "sdpa", "--only", "float32 H=8", "--pairs", "2",
                                  "--json", out], stdout=subprocess.PIPE, text=True)
            first = p.stdout.readline()  # the first point's line: the second is now hanging
            self.assertIn("q=2048", first)
            p.terminate()
            rest, _ = p.communicate(timeout=60)
            self.assertEqual(p.returncode, 3, rest)
            with open(out) as f:
                report = json.load(f)
            self.assertEqual(report["meta"]["stopped_by"], "SIGTERM")
            self.assertEqual(len(report["results"]), 1)
            self.assertIn("points: 1 of 4 (stopped by SIGTERM)", rest)

    def test_gather_shape_goes_into_the_request_and_the_label(self):
        point = next(op_ab.gather_points(["affine4"], (32, 512, 512), [4]))
        self.assertEqual(point["args"], "gather_qmm affine4 up 4 32 512 512")
        self.assertEqual(op_ab.label(point), "gather_qmm affine4 up r=4 E=32 H=512 W=512")
        default = next(op_ab.gather_points(["affine4"]))
        self.assertEqual(op_ab.label(default), "gather_qmm affine4 up r=1")

    def test_sign_test_is_exact(self):
        self.assertEqual(op_ab.sign_test([1.1] * 6), (6, 0, 2 / 64))
        self.assertEqual(op_ab.sign_test([1.1, 0.9]), (1, 1, 1.0))


if __name__ == "__main__":
    unittest.main()
