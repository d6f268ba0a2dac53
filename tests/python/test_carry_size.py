"""scripts/gpu/carry-size: the checkout's files plus the named ignored paths against the device
tool's 64 MiB (a call over it fails; at 68ccb21 the pack's list with five prebuilt arms was)."""
import os, shutil, subprocess, sys, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run alone, not only by discover
import gpu_stage  # noqa: E402

SCRIPT = os.path.join(gpu_stage.ROOT, "scripts", "gpu", "carry-size")
MB = 1024 * 1024


class CarrySize(unittest.TestCase):
    def setUp(self):
        self.repo = gpu_stage.work_folder(self, "repo")
        os.makedirs(os.path.join(self.repo, "scripts", "gpu"))
        shutil.copy(SCRIPT, os.path.join(self.repo, "scripts", "gpu"))
        self.write("tracked.bin", 10 * MB)
        self.write("untracked.bin", 20 * MB)
        self.write(".gpu/built.tar.xz", 30 * MB)
        self.write(".gitignore", 0, ".gpu\n")
        git = lambda *a: subprocess.run(["git", "-C", self.repo, *a], check=True, capture_output=True)
        git("init", "-q")
        git("add", "tracked.bin", ".gitignore", "scripts")
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "t")

    def write(self, name, size, text=None):
        path = os.path.join(self.repo, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            if text is not None:
                f.write(text)
            f.truncate(size or len(text or ""))

    def carry(self, *paths):
        return subprocess.run([os.path.join(self.repo, "scripts", "gpu", "carry-size"), *paths],
                              capture_output=True, text=True)

    def test_the_checkout_counts_untracked_files_not_ignored_ones(self):
        done = self.carry()
        self.assertEqual(done.returncode, 0, done.stderr)
        checkout = float(done.stdout.split("checkout ")[1].split(" MB")[0])
        self.assertAlmostEqual(checkout, 30 * MB / 1e6, delta=0.1)  # not the ignored 30 MB

    def test_named_paths_that_pass_the_limit_fail(self):
        self.assertEqual(self.carry(".gpu/built.tar.xz").returncode, 0)  # 60 MB
        self.write(".gpu/more.tar.xz", 8 * MB)
        done = self.carry(".gpu/built.tar.xz", ".gpu/more.tar.xz")  # 68 MiB
        self.assertEqual(done.returncode, 1)
        self.assertIn("over the limit", done.stderr)


if __name__ == "__main__":
    unittest.main()
