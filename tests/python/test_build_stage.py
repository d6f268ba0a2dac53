"""The build stage (build_arm of scripts/gpu/stages/build.sh) with an arm prebuilt on the CPU
machine (scripts/gpu/prebuild: .gpu/built/arms.tar.xz and ARM.txt): unpacked instead of built
only where it loads (ldd -r) and its
SERIES is what the arm's patches are (mlx-build series, the real one) and BUILD_SUITE=0; else
built, and the stage says why. mlx-build's build is a stand-in that logs its arguments, and the
pristine source is not unpacked."""
import io, os, subprocess, sys, tarfile, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run alone, not only by discover
import gpu_stage  # noqa: E402

MLX_BUILD = os.path.join(gpu_stage.ROOT, "scripts", "mlx-build")
EXPERIMENT = "scripts/repro/experiments/clear-cache-keeps-pool.patch"

# PACK/tools/mlx-build: the checkout's, but for `build`, which logs and installs a library.
FAKE_MLX_BUILD = f"""#!/usr/bin/env bash
if [[ $1 == build ]]; then
  echo "mlx-build $*" >> "$WORK/calls.txt"
  while (($#)); do [[ $1 == --prefix ]] && mkdir -p "$2/lib" && touch "$2/lib/libmlx.so"; shift; done
  exit 0
fi
exec "{MLX_BUILD}" "$@"
"""

STUBS = """
source scripts/gpu/lib.sh
say() { echo "say: $*"; }
die() { echo "die: $*"; exit 1; }
left() { echo 1000; }
"""


def series(*args):
    out = subprocess.run([MLX_BUILD, "series", *args], capture_output=True, text=True, check=True)
    return out.stdout


class BuildStage(unittest.TestCase):
    def setUp(self):
        self.work = gpu_stage.work_folder(self, "logs", "pack/tools", "pack/built", "pack/arms/patched/bin",
                                          "pack/arms/stock/bin")
        self.pack = os.path.join(self.work, "pack")
        tool = os.path.join(self.pack, "tools", "mlx-build")
        with open(tool, "w") as f:
            f.write(FAKE_MLX_BUILD)
        os.chmod(tool, 0o755)

    def prebuilt(self, arm, series_text, needs_missing_library=False, calls_unresolved=False):
        """ARM in PACK/built/arms.tar.xz (made again with every arm staged so far) and its
        ARM.txt, holding SERIES_TEXT as its SERIES and a libmlx.so: a text file, or a shared
        library that needs one this machine does not have, or that calls a function no library
        it needs defines (as with an empty libcuda stub)."""
        staged = os.path.join(self.work, "staged")
        stage = os.path.join(staged, arm)
        os.makedirs(os.path.join(stage, "lib"))
        with open(os.path.join(stage, "SERIES"), "w") as f:
            f.write(series_text)
        library = os.path.join(stage, "lib", "libmlx.so")
        if needs_missing_library:
            gone = os.path.join(self.work, "gone")
            os.makedirs(gone)
            for name, link in [("libgone.so", []), (library, ["-L" + gone, "-Wl,--no-as-needed", "-lgone"])]:
                subprocess.run(["cc", "-shared", "-fPIC", "-x", "c", "-", "-o", os.path.join(gone, name), *link],
                               input="int f(void) { return 0; }", text=True, check=True)
            os.remove(os.path.join(gone, "libgone.so"))
        elif calls_unresolved:
            subprocess.run(["cc", "-shared", "-fPIC", "-x", "c", "-", "-o", library],
                           input="int cuNowhere(void); int f(void) { return cuNowhere(); }", text=True, check=True)
        else:
            subprocess.run(["cc", "-shared", "-fPIC", "-x", "c", "-", "-o", library],
                           input='const char *prebuilt = "prebuilt";', text=True, check=True)
        with open(os.path.join(self.pack, "built", arm + ".txt"), "w") as f:
            f.write("built here\n")
        with tarfile.open(os.path.join(self.pack, "built", "arms.tar.xz"), "w:xz") as t:
            for name in os.listdir(staged):
                t.add(os.path.join(staged, name), arcname=name)

    def build(self, arm, **env):
        env = {"PACK": self.pack, "REPO": gpu_stage.ROOT, "BACKEND": "cuda", "JOBS": "2",
               "CUDNN_ROOT": "/none", "BUILD_SUITE": "0", **env}
        p = gpu_stage.run("build.sh", f"unpack() {{ :; }}; build_arm {arm}", self.work, env, STUBS)
        return p, gpu_stage.calls(self.work)

    def assert_built_there(self, arm, said):
        """ARM's build stage builds it (one mlx-build build) and its output names SAID."""
        p, calls = self.build(arm)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(said, p.stdout)
        self.assertEqual(len(calls), 1, calls)

    def library(self, arm):
        """What built ARM's libmlx.so: "prebuilt" where unpacked, "" where the stand-in built it."""
        with open(os.path.join(self.work, "arms", arm, "lib", "libmlx.so"), "rb") as f:
            return "prebuilt" if b"prebuilt" in f.read() else ""

    def test_a_prebuilt_arm_of_the_same_series_is_unpacked(self):
        self.prebuilt("patched", series("--patches", "all"))
        p, calls = self.build("patched")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(calls, [])
        self.assertIn("unpacked the arm prebuilt", p.stdout)
        self.assertEqual(self.library("patched"), "prebuilt")
        # Stock's SERIES is empty; it matches stock only.
        self.prebuilt("stock", series("--patches", "none"))
        p, calls = self.build("stock")
        self.assertEqual((p.returncode, calls), (0, []), p.stdout + p.stderr)

    def test_other_patches_or_the_suite_build_it(self):
        lines = series("--patches", "all").splitlines(keepends=True)
        self.prebuilt("patched", "".join(lines[:-1]))  # one patch fewer
        p, calls = self.build("patched")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("applied other patches", p.stdout)
        self.assertEqual(len(calls), 1, calls)
        self.assertIn("--patches all", calls[0])
        self.assertEqual(self.library("patched"), "")

        self.prebuilt("stock", series("--patches", "none"))
        p, calls = self.build("stock", BUILD_SUITE="1")
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(len(calls), 1, calls)
        self.assertIn("--cpp-suite", calls[0])

    def test_a_library_that_does_not_resolve_here_is_built(self):
        self.prebuilt("patched", series("--patches", "all"), needs_missing_library=True)
        self.assert_built_there("patched", "libgone.so")
        self.assertEqual(self.library("patched"), "")

    def test_a_library_that_calls_an_undefined_function_is_built(self):
        self.prebuilt("patched", series("--patches", "all"), calls_unresolved=True)
        self.assert_built_there("patched", "cuNowhere")

    def test_a_file_that_is_no_library_or_an_arm_not_in_the_archive_is_built(self):
        self.prebuilt("patched", series("--patches", "all"))
        with tarfile.open(os.path.join(self.pack, "built", "arms.tar.xz"), "w:xz") as t:
            info = tarfile.TarInfo("patched/SERIES")
            text = series("--patches", "all").encode()
            info.size = len(text)
            t.addfile(info, io.BytesIO(text))
            info = tarfile.TarInfo("patched/lib/libmlx.so")
            info.size = 4
            t.addfile(info, io.BytesIO(b"text"))
        p, calls = self.build("patched")
        self.assertEqual((p.returncode, len(calls)), (0, 1), p.stdout + p.stderr)
        self.assertIn("does not load here", p.stdout)
        # stock's SERIES is empty, as a missing one would read: still not taken.
        with open(os.path.join(self.pack, "built", "stock.txt"), "w") as f:
            f.write("built here\n")
        p, calls = self.build("stock")
        self.assertEqual((p.returncode, len(calls)), (0, 1), p.stdout + p.stderr)
        self.assertIn("no stock/SERIES", p.stdout)

    def test_an_experiment_arm_matches_with_its_extra_patch(self):
        self.prebuilt("keeppool", series("--patches", "all", "--extra-patch", EXPERIMENT))
        p, calls = self.build("keeppool", EXTRA_BASE="all", EXTRA_PATCH=EXPERIMENT)
        self.assertEqual((p.returncode, calls), (0, []), p.stdout + p.stderr)
        with open(os.path.join(self.work, "arms", "keeppool", "bin-arm")) as f:
            self.assertEqual(f.read().strip(), "patched")
        # The series' archive is not the experiment's.
        self.prebuilt("keeppool2", series("--patches", "all"))
        p, calls = self.build("keeppool2", EXTRA_BASE="all", EXTRA_PATCH=EXPERIMENT)
        self.assertEqual(len(calls), 1, p.stdout + p.stderr)
        self.assertIn("--extra-patch", calls[0])


if __name__ == "__main__":
    unittest.main()
