"""The CUDA toolkit made of NVIDIA's wheels (scripts/cuda-flags.sh): nvcc.profile links from
lib64, the wheels install lib/, so the toolkit gets lib64 -> lib, also in a cache fetched before
that link existed (a fresh cache's CMake check failed without it, 2026-12-07)."""
import os, subprocess, sys, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run alone, not only by discover
import gpu_stage  # noqa: E402

LIB = os.path.join(gpu_stage.ROOT, "scripts", "cuda-flags.sh")


def sh(call, root):
    env = dict(os.environ, MLX_BUILD_CACHE=root)
    return subprocess.run(["bash", "-c", f'set -u; source "{LIB}"; {call}'], env=env,
                          capture_output=True, text=True)


class CudaWheels(unittest.TestCase):
    def setUp(self):
        self.root = gpu_stage.work_folder(self, "cache")
        self.toolkit = os.path.join(self.root, "cache", "cuda-check", "wheels", "cu13")
        got = os.path.join(self.root, "cache", "cuda-check", "wheels", ".got")
        os.makedirs(got)
        open(os.path.join(got, "nvidia-cuda-nvcc==13.0.88"), "w").close()

    def run_fetched(self):
        done = sh("cuda_wheels nvidia-cuda-nvcc==13.0.88", os.path.join(self.root, "cache"))
        self.assertEqual(done.returncode, 0, done.stderr)

    def test_a_fetched_toolkit_gets_lib64(self):
        os.makedirs(os.path.join(self.toolkit, "lib"))
        open(os.path.join(self.toolkit, "lib", "libcudadevrt.a"), "w").close()
        self.run_fetched()
        self.assertEqual(os.readlink(os.path.join(self.toolkit, "lib64")), "lib")
        self.assertTrue(os.path.exists(os.path.join(self.toolkit, "lib64", "libcudadevrt.a")))
        self.run_fetched()  # again: the link is there, nothing fails

    def test_no_toolkit_no_link(self):
        self.run_fetched()
        self.assertFalse(os.path.lexists(os.path.join(self.toolkit, "lib64")))


if __name__ == "__main__":
    unittest.main()
