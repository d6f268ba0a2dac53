"""The gputime stage (run_gputime of scripts/gpu/stages/profile.sh) with a stand-in ncu: its two
runs (2 and 6 new tokens), their difference and the prefill's kernels; GPUTIME_SKIP reaching ncu
as --launch-skip and named in the result; a run a stamp says is done kept in a later call,
another prompt's not, nor one whose CSV a failed run began to replace; a skip that leaves ncu
nothing to time an error, not a summary."""
import os, sys, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run alone, not only by discover
import gpu_stage  # noqa: E402

# A stand-in ncu: the command's --max-tokens N launches 9 prefill kernels and an ArgMax (the first
# token), then 3 kernels a step for the N - 1 steps after it; --launch-skip S leaves out the
# first S. Each call is logged as the stubs' calls are (gpu_stage.calls).
NCU = r"""#!/usr/bin/env bash
skip=0 n=0
while (($#)); do
  case $1 in --launch-skip) skip=$2; shift ;; --max-tokens) n=$2; shift ;; esac
  shift
done
echo "ncu n=$n skip=$skip" >> "$WORK/calls.txt"
echo '"ID","Kernel Name","Metric Name","Metric Unit","Metric Value"'
[[ -z ${NCU_FAIL:-} ]] || exit 1  # a run cut short, its CSV begun
i=0
emit() { ((i++ >= skip)) && printf '"%s","void %s()","gpu__time_duration.sum","ns","%s"\n' "$i" "$1" "$2"; return 0; }
for ((k = 0; k < 9; k++)); do emit prefill 5000; done
emit ArgMax 1000
for ((s = 1; s < n; s++)); do emit gemm 2000; emit cast 1000; emit norm 1000; done
"""

MODEL_CMD = 'model_cmd() { CMD=(mlx-ab "$1" --max-tokens "${@: -1}"); }'


class GputimeStage(unittest.TestCase):
    def setUp(self):
        w = self.work = gpu_stage.work_folder(self, "done", "logs")
        with open(os.path.join(w, "ncu"), "w") as f:
            f.write(NCU)
        os.chmod(os.path.join(w, "ncu"), 0o755)

    def run_stage(self, **env):
        p = gpu_stage.run("profile.sh", 'run_gputime "$WORK/ncu"', self.work, {"GPUTIME_PROMPT": "8", **env},
                          MODEL_CMD)
        return p, gpu_stage.calls(self.work)

    def test_difference_and_skip(self):
        p, calls = self.run_stage()
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        self.assertEqual(calls, ["ncu n=2 skip=0", "ncu n=6 skip=0"])
        self.assertIn("one decode step: 3.0 kernels, 0.004 ms of kernel time", p.stdout)
        self.assertNotIn("unprofiled", p.stdout)
        self.assertIn("prefill: 10 kernels to the first token's ArgMax, 0.046 ms of kernel time", p.stdout)
        p, calls = self.run_stage(GPUTIME_SKIP="8")
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        self.assertEqual(calls, ["ncu n=2 skip=8", "ncu n=6 skip=8"])
        self.assertIn("first 8 kernels launched unprofiled", p.stdout)
        self.assertIn("shorter run: 5 kernels", p.stdout)
        self.assertIn("one decode step: 3.0 kernels, 0.004 ms of kernel time", p.stdout)
        self.assertNotIn("prefill:", p.stdout)

    def test_a_finished_run_is_kept_for_its_prompt_only(self):
        self.run_stage()
        p, calls = self.run_stage()
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        self.assertEqual(calls, [])
        self.assertIn("one decode step: 3.0 kernels", p.stdout)
        p, calls = self.run_stage(GPUTIME_PROMPT="16")
        self.assertEqual(calls, ["ncu n=2 skip=0", "ncu n=6 skip=0"])
        # Prompt 16's runs replaced prompt 8's CSVs: prompt 8 runs again.
        p, calls = self.run_stage()
        self.assertEqual(calls, ["ncu n=2 skip=0", "ncu n=6 skip=0"])
        # Another arm, whose name begins as this one's, keeps its runs when this one's are replaced.
        self.run_stage(GPUTIME_ARM="stock-x")
        p, calls = self.run_stage(GPUTIME_PROMPT="16")
        self.assertEqual(len(calls), 2)
        p, calls = self.run_stage(GPUTIME_ARM="stock-x")
        self.assertEqual(calls, [])

    def test_a_run_cut_short_leaves_no_stamp(self):
        self.run_stage()
        p, calls = self.run_stage(GPUTIME_PROMPT="16", NCU_FAIL="1")
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(calls, ["ncu n=2 skip=0"])
        # Its CSV replaced prompt 8's shorter run: that runs again, the longer one is kept.
        p, calls = self.run_stage()
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        self.assertEqual(calls, ["ncu n=2 skip=0"])

    def test_a_skip_past_the_shorter_run_is_an_error(self):
        p, calls = self.run_stage(GPUTIME_SKIP="20")
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(calls, ["ncu n=2 skip=20"])
        self.assertIn("ncu timed no kernel (GPUTIME_SKIP=20 too many?)", p.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.work, "logs", "gputime-stock.txt")))


if __name__ == "__main__":
    unittest.main()
