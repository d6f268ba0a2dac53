"""scripts/gpu/phases_summary.py on stand-in reports: the warm-up count, the prefill's milliseconds
in all and per phase ("-" for a report without them), milliseconds per decode step (the first token is the prefill's),
and a clear error (no traceback) for a run without decode phases."""
import json, os, subprocess, sys, tempfile, unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUMMARY = os.path.join(ROOT, "scripts", "gpu", "phases_summary.py")


def summary(*reports):
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for i, report in enumerate(reports):
            paths.append(os.path.join(d, f"phases-{i}.json"))
            with open(paths[-1], "w") as f:
                json.dump(report, f)
        return subprocess.run([sys.executable, SUMMARY, *paths], capture_output=True, text=True)


class PhasesSummary(unittest.TestCase):
    def test_per_step_milliseconds(self):
        phases = {"graph_seconds": 0.004, "submit_seconds": 0.008, "wait_seconds": 0.2, "readback_seconds": 0.0,
                  "clear_cache_seconds": 0.0}
        prefill = {"graph_seconds": 0.001, "submit_seconds": 0.002, "wait_seconds": 0.03, "readback_seconds": 0.0005,
                   "clear_cache_seconds": 0.004}
        old = {"tokens": [1, 2, 3, 4, 5], "decode_tps": 19.96, "decode_phases": phases}
        new = dict(old, prefill_phases=prefill, warmup=1, prompt_tokens=2048, prefill_tps=51200.0)
        out = summary(new, old)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertEqual(lines[1], "phases-0.json 1 40.000 1.000 2.000 30.000 4.000 0.500 20.0 1.000 2.000 50.000 0.000")
        self.assertEqual(lines[2], "phases-1.json - - - - - - - 20.0 1.000 2.000 50.000 0.000")

    def test_a_run_without_phases_is_an_error(self):
        out = summary({"tokens": [1, 2], "decode_tps": 1.0})
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("no decode steps with phases", out.stderr)
        self.assertNotIn("Traceback", out.stderr)


if __name__ == "__main__":
    unittest.main()
