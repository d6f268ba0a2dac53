"""scripts/op_ab.py's verdicts, with stand-in workers (shell scripts speaking op-bench's
protocol): identical digests pass, one differing digest fails the run, a worker error leaves
no report. Run by scripts/test-all: python3 -m unittest discover -s tests/python."""
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

    def test_sign_test_is_exact(self):
        self.assertEqual(op_ab.sign_test([1.1] * 6), (6, 0, 2 / 64))
        self.assertEqual(op_ab.sign_test([1.1, 0.9]), (1, 1, 1.0))


if __name__ == "__main__":
    unittest.main()
