"""A model of gather_qmv_mma_kernel's registers (scripts/repro/experiments/gather-qmv-wide.patch,
qmv_wide.cuh) for one group of 64 values of K and one warp: mma.sync m16n8k16 with A (row), B
(col) and C/D laid out as PTX's ISA gives them, filled as the kernel fills them (q_pair, x_pair,
the step s's words), against the plain products. It checks the kernel's choice of registers (a
permutation of K shared by A and B), not the CUDA code itself. Run: python3 THIS (exit 0: they
agree)."""
import numpy as np
rng = np.random.default_rng(0)
F, R, K = 16, 8, 64
q = rng.integers(0, 16, size=(F, K))          # 4-bit weights of 16 features
x = rng.standard_normal((R, K)).astype(np.float32)
# MLX packing: 8 nibbles a uint32, lower k in the lower nibble; a row's bytes little-endian
words = np.zeros((F, K // 8), dtype=np.uint64)
for f in range(F):
    for j in range(K // 8):
        words[f, j] = sum(int(q[f, 8 * j + i]) << (4 * i) for i in range(8))

def q_pair(word, j):  # -> (lo, hi) values 128 + q
    v = ((int(word) >> (4 * j)) & 0x000F000F) | 0x43004300
    return 128 + (v & 0xF), 128 + ((v >> 16) & 0xF)

def mma(d, a_frag, b_frag):
    # a_frag[lane] = 4 regs of (lo, hi); b_frag[lane] = 2 regs; d[lane] 4 floats.
    A = np.zeros((16, 16)); B = np.zeros((16, 8))
    for lane in range(32):
        g, c = lane // 4, lane % 4
        (a0, a1, a2, a3) = a_frag[lane]
        A[g, 2 * c:2 * c + 2] = a0; A[g + 8, 2 * c:2 * c + 2] = a1
        A[g, 2 * c + 8:2 * c + 10] = a2; A[g + 8, 2 * c + 8:2 * c + 10] = a3
        b0, b1 = b_frag[lane]
        B[2 * c:2 * c + 2, g] = b0; B[2 * c + 8:2 * c + 10, g] = b1
    D = A @ B
    for lane in range(32):
        g, c = lane // 4, lane % 4
        d[lane] += np.array([D[g, 2 * c], D[g, 2 * c + 1], D[g + 8, 2 * c], D[g + 8, 2 * c + 1]])

d = np.zeros((32, 4)); sx = np.zeros((32, 4))
for s in range(4):
    a_frag, one_frag, b_frag = [], [], []
    for lane in range(32):
        g, c = lane // 4, lane % 4
        w0 = [words[g, 2 * c], words[g + 8, 2 * c]]      # bytes 8c..8c+3: k 16c..16c+7
        w1 = [words[g, 2 * c + 1], words[g + 8, 2 * c + 1]]
        a_frag.append([q_pair(w0[0], s), q_pair(w0[1], s), q_pair(w1[0], s), q_pair(w1[1], s)])
        one_frag.append([(1, 1)] * 4)
        x0 = x[g, 16 * c:16 * c + 8]; x1 = x[g, 16 * c + 8:16 * c + 16]
        b_frag.append([(x0[s], x0[s + 4]), (x1[s], x1[s + 4])])
    mma(d, a_frag, b_frag)
    mma(sx, one_frag, b_frag)
want = x @ (q + 128).T  # (rows, features)
want_sx = x.astype(np.float64).sum(axis=1)
err = 0
for lane in range(32):
    g, c = lane // 4, lane % 4
    for v, (f, r) in enumerate([(g, 2 * c), (g, 2 * c + 1), (g + 8, 2 * c), (g + 8, 2 * c + 1)]):
        err = max(err, abs(d[lane, v] - want[r, f]), abs(sx[lane, v] - want_sx[r]))
print("max error", err)
assert err < 1e-9
