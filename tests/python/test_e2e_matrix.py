"""The e2e stage's matrix (scripts/gpu/stages/e2e.sh) and its summary (scripts/gpu/e2e_summary.py):
a line's arms (B alone is stock against B; A:B names both) and environment (KEY=VALUE for B's
worker, A:KEY=VALUE for A's) reach `mlx-ab run` as they should; a line whose arm is not built,
or that leaves one side of A:B empty, is skipped; the summary names each arm by its label."""
import json, os, subprocess, sys, tempfile, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run alone, not only by discover
import gpu_stage  # noqa: E402

SUMMARY = os.path.join(gpu_stage.ROOT, "scripts", "gpu", "e2e_summary.py")
# ab_run, which the stage's lines call, stands for `mlx-ab run`.
AB_RUN = 'ab_run() { echo "ab_run $*" >> "$WORK/calls.txt"; }'


def run_matrix(lines, arms):
    """The stage's skip messages and ab_run's calls, in order."""
    with tempfile.TemporaryDirectory() as work:
        for arm in arms:
            os.makedirs(os.path.join(work, "arms", arm))
        matrix = os.path.join(work, "matrix.tsv")
        with open(matrix, "w") as f:
            f.write("# name preset prompt chunk gen [A:]B pairs [ENV]\n" + "".join(l + "\n" for l in lines))
        p = gpu_stage.run("e2e.sh", "run_e2e", work, {"E2E_MATRIX": matrix}, AB_RUN)
        said = [l for l in p.stdout.splitlines() if l.startswith("say: e2e") and ": --" not in l]
        return said + gpu_stage.calls(work)


def report(a_label, b_label):
    r = {"median": 1.5, "ci95": [1.25, 1.75], "sign_test": {"greater": 5, "less": 1}}
    return {"workload": {"preset": "p", "prompt_len": 8, "prefill_chunk": 8, "gen_len": 4}, "verdict": "identical",
            "arms": {"A": {"label": a_label, "prefill_tps": {"median": 100}, "decode_tps": {"median": 10}},
                     "B": {"label": b_label}},
            "ratio": {"prefill_tps": r, "decode_tps": r, "peak_memory_bytes": {"median": 1.0}}}


class E2eMatrix(unittest.TestCase):
    def test_arms_and_environment(self):
        out = run_matrix(["one p 8 8 4 wide 6",
                          "two p 8 8 4 wide:wide 6 A:SWITCH=off",
                          "three p 8 8 4 patched 6 SWITCH=off,A:OTHER=1"], ["stock", "wide", "patched"])
        runs = [l for l in out if l.startswith("ab_run")]
        self.assertEqual(len(runs), 3, out)
        self.assertTrue(runs[0].startswith("ab_run stock wide --device gpu"), runs[0])
        self.assertNotIn("-env", runs[0])
        self.assertTrue(runs[1].startswith("ab_run wide wide "), runs[1])
        self.assertIn("--a-env SWITCH=off", runs[1])
        self.assertNotIn("--b-env", runs[1])
        self.assertTrue(runs[2].startswith("ab_run stock patched "), runs[2])
        self.assertIn("--b-env SWITCH=off", runs[2])
        self.assertIn("--a-env OTHER=1", runs[2])

    def test_an_arm_not_built_or_not_named_is_skipped(self):
        out = run_matrix(["one p 8 8 4 wide:patched 6", "two p 8 8 4 :patched 6", "three p 8 8 4 patched: 6"],
                         ["stock", "patched"])
        self.assertEqual(out, ["say: e2e one: arm wide or patched not built; skipped",
                               "say: e2e two: ':patched' names no arm on one side of A:B",
                               "say: e2e three: 'patched:' names no arm on one side of A:B"])

    def test_summary_names_both_arms(self):
        with tempfile.TemporaryDirectory() as d:
            with open(os.path.join(d, "run.json"), "w") as f:
                json.dump(report("all patches + x.patch with `SWITCH=off`", "all patches + x.patch"), f)
            out = subprocess.run(["python3", SUMMARY, d], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        row = out.stdout.splitlines()[2]
        self.assertTrue(row.startswith("| run | p | 8 / 8 / 4 | all patches + x.patch with `SWITCH=off` | "
                                       "all patches + x.patch | identical | 100 |"), row)
        self.assertIn("1.500 [1.250, 1.750] (5/1)", row)


if __name__ == "__main__":
    unittest.main()
