# Compiles the grouped experiment's kernel header (and with it MLX's qmm_sm90.cuh) with NVRTC,
# as MLX's JIT does (--device-as-default-execution-space, the bundled CUTLASS and CCCL headers),
# plus one empty kernel per probed type, and prints each kernel's parameter size and alignment
# from the PTX. usage: nvrtc_probe.py LIBNVRTC (see ./run)
import ctypes, re, sys, os
lib = ctypes.CDLL(sys.argv[1])
src = open(os.environ['MLX_SRC'] + '/mlx/backend/cuda/quantized/qmm/gather_qmm_sm90_kernel.cuh').read() + '\n' + open('probe_types.h').read() + '''
#define KERNEL(name, T) extern "C" __global__ void probe_##name(T p) {}
PROBE_TYPES(KERNEL)
'''
prog = ctypes.c_void_p()
assert lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"probe.cu", 0, None, None) == 0
deps = os.environ['CUDA_CHECK_CACHE'] + '/deps'
cuda = os.environ['CUDA_TOOLKIT'] + '/include'
opts = [b"--device-as-default-execution-space", b"--gpu-architecture=compute_90a",
        f"--include-path={os.environ['MLX_SRC']}".encode(),
        f"--include-path={deps}/cutlass/include".encode(), f"--include-path={deps}/cccl/include".encode(),
        f"--include-path={cuda}".encode()] + [o.encode() for o in sys.argv[2:]]
arr = (ctypes.c_char_p * len(opts))(*opts)
rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
n = ctypes.c_size_t()
lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n)); log = ctypes.create_string_buffer(n.value)
lib.nvrtcGetProgramLog(prog, log)
if rc != 0:
    print(log.value.decode()[-3000:]); sys.exit(1)
lib.nvrtcGetPTXSize(prog, ctypes.byref(n)); ptx = ctypes.create_string_buffer(n.value)
lib.nvrtcGetPTX(prog, ptx)
for m in re.finditer(r'\.entry (probe_\w+)\(\s*\.param \.align (\d+) \.b8 \w+\[(\d+)\]', ptx.value.decode()):
    print(m.group(1)[6:], m.group(3), m.group(2))
