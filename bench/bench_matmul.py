"""bench_matmul.py - the naive 512x512x512 float32 matmul of
te.create_prim_func: tirc --emit=c built with gcc -O3 -march=native against
tvm.compile(mod, target="llvm") of the same TIR, both checked against numpy,
median of RUNS runs in one process each (ms)."""
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import tvm
from tvm import te

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 5
N = 512

A = te.placeholder((N, N), name="A")
B = te.placeholder((N, N), name="B")
k = te.reduce_axis((0, N), name="k")
C = te.compute((N, N), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
mod = tvm.IRModule({"main": te.create_prim_func([A, B, C])})


def aligned(x, align=64):
    """x copied to `align`-byte aligned memory: the generated C's calling
    convention (README, "Generated C"); numpy gives 16 bytes"""
    raw = np.empty(x.nbytes + align, np.uint8)
    off = (-raw.ctypes.data) % align
    out = raw[off:off + x.nbytes].view(x.dtype).reshape(x.shape)
    out[...] = x
    return out


a = aligned(np.random.default_rng(0).standard_normal((N, N)).astype("float32"))
b = aligned(np.random.default_rng(1).standard_normal((N, N)).astype("float32"))
want = a @ b

with tempfile.TemporaryDirectory() as d:
    src = os.path.join(d, "mm.tir")
    open(src, "w").write(mod.script())
    subprocess.run([os.path.join(ROOT, "build", "bin", "tirc"), "--emit=c", "--symbol=mm", src, "-o",
                    os.path.join(d, "mm.c")], check=True)
    so = os.path.join(d, "mm.so")
    subprocess.run(["gcc", "-std=c11", "-O3", "-march=native", "-fPIC", "-shared", os.path.join(d, "mm.c"), "-o", so,
                    "-lm"], check=True)
    lib = ctypes.CDLL(so)
    fp = ctypes.POINTER(ctypes.c_float)
    lib.mm.argtypes = [fp, fp, fp]
    lib.mm.restype = ctypes.c_int32
    c = aligned(np.zeros((N, N), "float32"))
    ptr = lambda x: x.ctypes.data_as(fp)  # noqa: E731
    times = []
    for _ in range(RUNS):
        t0 = time.perf_counter()
        if lib.mm(ptr(a), ptr(b), ptr(c)) != 0:
            raise SystemExit("the generated C refused its arguments")
        times.append((time.perf_counter() - t0) * 1e3)
    np.testing.assert_allclose(c, want, rtol=1e-3, atol=1e-3)
    tirc_ms = statistics.median(times)

rt = tvm.compile(mod, target="llvm")
dev = tvm.cpu()
ta, tb, tc = tvm.runtime.tensor(a, dev), tvm.runtime.tensor(b, dev), tvm.runtime.tensor(np.zeros((N, N), "float32"), dev)
times = []
for _ in range(RUNS):
    t0 = time.perf_counter()
    rt(ta, tb, tc)
    times.append((time.perf_counter() - t0) * 1e3)
np.testing.assert_allclose(tc.numpy(), want, rtol=1e-3, atol=1e-3)
tvm_ms = statistics.median(times)
print(f"matmul {N}^3 float32, unscheduled: tirc C (gcc -O3 -march=native) {tirc_ms:.1f} ms, "
      f"TVM LLVM {tvm_ms:.1f} ms, tirc speed {tvm_ms / tirc_ms:.2f}x TVM's")
