"""Runs one function of a scripts/gpu stage file under bash, in a work folder, with the helpers of
scripts/gpu/run and lib.sh it calls stubbed: the stages run nowhere else but the GPU machine,
where a mistake costs a device call. `say` prints; a stub that stands for a command writes its
arguments to WORK/calls.txt, which `calls` reads and empties."""
import os, subprocess, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

STUBS = """
set -u
say() { echo "say: $*"; }
left() { echo 1000; }
time_for() { return 0; }
make_model() { return 0; }
"""


def work_folder(test, *folders):
    """A work folder removed after TEST, with FOLDERS (paths relative to it) made."""
    work = tempfile.TemporaryDirectory()
    test.addCleanup(work.cleanup)
    for folder in folders:
        os.makedirs(os.path.join(work.name, folder))
    return work.name


def run(stage, call, work, env, stubs=""):
    """bash sources scripts/gpu/stages/STAGE after the stubs (and STUBS' extra ones), then runs CALL."""
    full = dict(os.environ, WORK=work, LOGS=os.path.join(work, "logs"), RUN_DEVICE="gpu", **env)
    script = f'{STUBS}{stubs}\nsource "{os.path.join(ROOT, "scripts", "gpu", "stages", stage)}"\n{call}\n'
    return subprocess.run(["bash", "-c", script], env=full, cwd=ROOT, capture_output=True, text=True)


def calls(work):
    """The stubbed commands' lines since the last look."""
    path = os.path.join(work, "calls.txt")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        lines = f.read().splitlines()
    os.remove(path)
    return lines
