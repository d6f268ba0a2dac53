"""MLX's JIT kernels carried between GPU machines (scripts/gpu/ptx-cache.sh): what one machine
packs, the next unpacks into its cache root once per archive, keeping files it already has."""
import glob, os, subprocess, sys, unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # run alone, not only by discover
import gpu_stage  # noqa: E402

LIB = os.path.join(gpu_stage.ROOT, "scripts", "gpu", "ptx-cache.sh")


def sh(call, root):
    env = dict(os.environ, MLX_BUILD_CACHE=root)
    return subprocess.run(["bash", "-c", f'set -u; source "{LIB}"; {call}'], env=env,
                          capture_output=True, text=True)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def read(path):
    with open(path) as f:
        return f.read()


class PtxCache(unittest.TestCase):
    def setUp(self):
        self.work = gpu_stage.work_folder(self, "first", "next")
        self.first, self.next = (os.path.join(self.work, d) for d in ("first", "next"))
        self.archive = os.path.join(self.work, "ptx.tar.xz")

    def test_kernels_reach_the_next_machine_and_its_own_are_kept(self):
        write(f"{self.first}/ptx/arm1/k.ptx", "first's k")
        write(f"{self.first}/ptx/arm2/j.ptx", "first's j")
        write(f"{self.first}/ptx/.from-0123456789abcdef", "")
        self.assertEqual(sh(f'ptx_cache_pack "{self.archive}"', self.first).returncode, 0)
        write(f"{self.next}/ptx/arm1/k.ptx", "next's own k")
        self.assertEqual(sh(f'ptx_cache_unpack "{self.archive}"', self.next).returncode, 0)
        self.assertEqual(read(f"{self.next}/ptx/arm2/j.ptx"), "first's j")
        self.assertEqual(read(f"{self.next}/ptx/arm1/k.ptx"), "next's own k")
        markers = [n for n in os.listdir(f"{self.next}/ptx") if n.startswith(".from-")]
        self.assertEqual(len(markers), 1, "one marker, this archive's: the first machine's is not packed")
        self.assertNotEqual(markers[0], ".from-0123456789abcdef")

    def test_an_archive_is_unpacked_once(self):
        write(f"{self.first}/ptx/arm1/k.ptx", "k")
        sh(f'ptx_cache_pack "{self.archive}"', self.first)
        sh(f'ptx_cache_unpack "{self.archive}"', self.next)
        os.remove(f"{self.next}/ptx/arm1/k.ptx")
        sh(f'ptx_cache_unpack "{self.archive}"', self.next)
        self.assertFalse(os.path.exists(f"{self.next}/ptx/arm1/k.ptx"), "the same archive again is skipped")
        write(f"{self.first}/ptx/arm1/k2.ptx", "k2")
        sh(f'ptx_cache_pack "{self.archive}"', self.first)
        sh(f'ptx_cache_unpack "{self.archive}"', self.next)
        self.assertEqual(read(f"{self.next}/ptx/arm1/k.ptx"), "k", "another archive is unpacked")

    def test_nothing_compiled_writes_no_archive(self):
        self.assertEqual(sh(f'ptx_cache_pack "{self.archive}"', self.first).returncode, 0)
        self.assertFalse(os.path.exists(self.archive))

    def test_a_broken_archive_fails_and_is_tried_again(self):
        write(f"{self.next}/ptx/arm1/k.ptx", "k")
        write(self.archive, "not xz")
        r = sh(f'ptx_cache_unpack "{self.archive}"', self.next)
        self.assertNotEqual(r.returncode, 0)
        self.assertEqual(glob.glob(f"{self.next}/ptx/.from-*"), [], "no marker")


if __name__ == "__main__":
    unittest.main()
