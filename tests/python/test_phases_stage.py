"""The phases stage (run_phases of scripts/gpu/stages/phases.sh) with a stand-in generate: each
arm run once a round after one discarded generation (--warmup 1), its JSON summarised; a run under
PHASES_TAG keeps its own files and leaves the untagged run's in place; PHASES_ARMS runs those arms
alone, each of them built; a failed generation is
named and left out of the summary, and the stage says it failed."""
import os, sys, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run alone, not only by discover
import gpu_stage  # noqa: E402

# A stand-in for model_cmd's command: logs its arguments, writes a report to --json (or fails,
# for the arm named by FAIL_ARM).
STUBS = r"""
timeout() { shift; "$@"; }
model_cmd() {
  local verb=$1 arm=$2; shift 5
  CMD=(generate_stub "$arm" "$@")
}
generate_stub() {
  local arm=$1 json; shift
  echo "generate $arm $*" >> "$WORK/calls.txt"
  [[ $arm == "${FAIL_ARM:-}" ]] && return 1
  while (($#)); do [[ $1 == --json ]] && json=$2; shift; done
  printf '{"tokens": [1, 2, 3], "decode_tps": 10.0, "prompt_tokens": 4, "prefill_tps": 100.0, "warmup": 1,
    "decode_phases": {"graph_seconds": 0, "submit_seconds": 0, "wait_seconds": 0.1, "readback_seconds": 0}}' > "$json"
}
"""


class PhasesStage(unittest.TestCase):
    def setUp(self):
        self.work = gpu_stage.work_folder(self, "logs", "arms/stock", "arms/patched")

    def run_stage(self, **env):
        p = gpu_stage.run("phases.sh", "run_phases", self.work, {"PHASES_RUNS": "1", **env}, STUBS)
        return p, gpu_stage.calls(self.work)

    def logs(self):
        return sorted(os.listdir(os.path.join(self.work, "logs")))

    def test_tagged_run_keeps_the_untagged_files(self):
        p, calls = self.run_stage()
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        self.assertEqual(len(calls), 2)
        self.assertTrue(all("--phases --warmup 1" in c for c in calls), calls)
        self.assertEqual([c.split()[1] for c in calls], ["stock", "patched"])
        p, _ = self.run_stage(PHASES_TAG="nographs")
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        self.assertIn("phases-qwen3-30b-a3b-stock-1.json", self.logs())
        self.assertIn("phases-nographs-qwen3-30b-a3b-stock-1.json", self.logs())
        with open(os.path.join(self.work, "logs", "phases-nographs.txt")) as f:
            summary = f.read()
        self.assertEqual(summary.count(".json"), 2, summary)
        self.assertIn("phases-nographs-qwen3-30b-a3b-patched-1.json 1 40.000", summary)
        self.assertNotIn("phases-qwen3", summary)

    def test_phases_arms_runs_those_arms_alone_and_requires_them_built(self):
        p, calls = self.run_stage(PHASES_ARMS="patched", PHASES_RUNS="2")
        self.assertEqual(p.returncode, 0, p.stderr + p.stdout)
        self.assertEqual([c.split()[1] for c in calls], ["patched", "patched"])
        p, calls = self.run_stage(PHASES_ARMS="patched wide")
        self.assertEqual(p.returncode, 2)
        self.assertIn("phases: arm wide not built", p.stdout)
        self.assertEqual(calls, [])

    def test_a_failed_generation_is_named_and_left_out(self):
        p, _ = self.run_stage(FAIL_ARM="patched")
        self.assertEqual(p.returncode, 2)
        self.assertIn("phases qwen3-30b-a3b patched run 1: exit 1", p.stdout)
        with open(os.path.join(self.work, "logs", "phases.txt")) as f:
            self.assertNotIn("patched", f.read())


if __name__ == "__main__":
    unittest.main()
