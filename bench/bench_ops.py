"""bench_ops.py - generated C against TVM's LLVM build of the same TIR, on
tvm.topi operators (issue 12).  For each operator the PrimFunc of
te.create_prim_func, once as it is ("unscheduled") and once after one CPU
schedule applied in TVM (tvm.s_tir.Schedule: tile + parallel + vectorize,
`schedule` below); the same `mod.script()` text goes to

  tirc --emit=c, built with gcc -O3 -march=native -fopenmp (make bench-ops),
  tvm.compile(mod, target="llvm"),

both results are checked against numpy, and the two are timed alternately
in one process (median of RUNS calls each, after one warm-up call).  Both
run on THREADS threads (OMP_NUM_THREADS / TVM_NUM_THREADS, 1 unless set:
`make bench-ops` sets both from BENCH_THREADS).

  python3 bench/bench_ops.py [RUNS] [--only NAME,...] [--keep DIR]
"""
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

THREADS = os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("TVM_NUM_THREADS", THREADS)
# Two thread pools share this process.  TVM's binds the calling thread to one
# core (libgomp's workers, created from it, then inherit that one core) and
# both spin between calls, taking the cores the other's workers need: both
# sleep when idle and neither binds.
os.environ.setdefault("TVM_BIND_THREADS", "0")
os.environ.setdefault("TVM_THREAD_POOL_SPIN_COUNT", "0")
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np  # noqa: E402
import tvm  # noqa: E402
import tvm.s_tir as s_tir  # noqa: E402
from tvm import te, topi  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIRC = os.path.join(ROOT, "build", "bin", "tirc")
args = sys.argv[1:]
RUNS = int(args[0]) if args and args[0].isdigit() else 15
ONLY = args[args.index("--only") + 1].split(",") if "--only" in args else None
KEEP = args[args.index("--keep") + 1] if "--keep" in args else None
FLT_MIN = np.float32(-3.4028234663852886e38)


def aligned(a, align=64):
    """a copy of a whose data is `align`-byte aligned: the generated C's
    calling convention (README, "Generated C"); numpy gives 16 bytes."""
    raw = np.empty(a.nbytes + align, np.uint8)
    off = (-raw.ctypes.data) % align
    out = raw[off:off + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def rnd(shape, seed, lo=-1.0, hi=1.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape).astype("float32")


# ---- operators: placeholders and output, inputs, numpy reference ----

def op_matmul():
    n = 512
    a, b = te.placeholder((n, n), name="A"), te.placeholder((n, n), name="B")
    return [a, b, topi.nn.matmul(a, b)], [rnd((n, n), 0), rnd((n, n), 1)], lambda x, y: x @ y


def op_conv2d():
    data = te.placeholder((1, 64, 32, 32), name="data")
    kern = te.placeholder((64, 64, 3, 3), name="kernel")
    out = topi.nn.conv2d_nchw(data, kern, 1, 1, 1)

    def ref(x, w):
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        win = np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))  # n c h w kh kw
        return np.einsum("nchwij,fcij->nfhw", win, w, optimize=True)
    return [data, kern, out], [rnd((1, 64, 32, 32), 2), rnd((64, 64, 3, 3), 3)], ref


def op_softmax():
    x = te.placeholder((1024, 1024), name="x")

    def ref(v):
        e = np.exp(v - v.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)
    return [x, topi.nn.softmax(x, axis=-1)], [rnd((1024, 1024), 4, -4, 4)], ref


def op_layer_norm():
    x = te.placeholder((1024, 1024), name="x")
    g, b = te.placeholder((1024,), name="gamma"), te.placeholder((1024,), name="beta")

    def ref(v, gv, bv):
        m = v.mean(axis=1, keepdims=True)
        return (v - m) / np.sqrt(((v - m) ** 2).mean(axis=1, keepdims=True) + 1e-5) * gv + bv
    return ([x, g, b, topi.nn.layer_norm(x, g, b, axis=[1], epsilon=1e-5)],
            [rnd((1024, 1024), 5), rnd((1024,), 6), rnd((1024,), 7)], ref)


def op_pool2d():
    d = te.placeholder((1, 64, 112, 112), name="data")
    p = topi.nn.pool2d(d, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max", layout="NCHW")

    def ref(v):
        vp = np.pad(v, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=FLT_MIN)
        win = np.lib.stride_tricks.sliding_window_view(vp, (3, 3), axis=(2, 3))[:, :, ::2, ::2]
        return win.max(axis=(4, 5))
    return [d, p], [rnd((1, 64, 112, 112), 8)], ref


OPS = [("matmul", op_matmul), ("conv2d", op_conv2d), ("softmax", op_softmax), ("layer_norm", op_layer_norm),
       ("pool2d", op_pool2d)]


# ---- one CPU schedule: tile + parallel + vectorize ----

def vec_width(n):
    for v in (16, 8, 4):
        if n % v == 0 and n > v:
            return v
    return 0


def schedule(mod):
    """Every block of the function: its innermost spatial loop split by a
    vector width (tile) and the inner part moved innermost and vectorized;
    the outer spatial loops fused and parallel; a reduction's init
    decomposed above the reduction loops.  Two spatial loops of a
    reduction (matmul) are tiled in two dimensions first."""
    sch = s_tir.Schedule(mod)
    root = sch.get_sblock("root")
    for blk in sch.get_child_blocks(root):
        loops = sch.get_loops(blk)
        kinds = [iv.iter_type for iv in sch.get(blk).iter_vars]
        if len(kinds) != len(loops):
            continue
        sp = [l for l, k in zip(loops, kinds) if k == 0]
        red = [l for l, k in zip(loops, kinds) if k != 0]
        if not sp:
            continue
        exts = [int(sch.get(l).extent) for l in sp]
        v = vec_width(exts[-1])
        if red and len(sp) == 2 and exts[0] % 32 == 0 and exts[1] % 64 == 0:  # a matmul: 32 x 64 tiles
            io, ii = sch.split(sp[0], [None, 32])
            jo, ji = sch.split(sp[1], [None, 64])
            jm, jv = sch.split(ji, [None, 16])
            sch.reorder(io, jo, *red, ii, jm, jv)
            sch.parallel(sch.fuse(io, jo))
            sch.vectorize(jv)
            sch.decompose_reduction(blk, red[0])
            continue
        if v:
            so, si = sch.split(sp[-1], [None, v])
            sch.reorder(*sp[:-1], so, *red, si)
            outer = sp[:-1] if len(sp) > 1 else [so]
        else:
            si, outer = None, sp[:-1] if len(sp) > 1 else sp
        par = sch.fuse(*outer) if len(outer) > 1 else outer[0]
        sch.parallel(par)
        if si is not None:
            sch.vectorize(si)
        if red:
            sch.decompose_reduction(blk, red[0])
    return sch.mod


# ---- the two builds ----

def build_tirc(mod, d, name, nargs):
    src = os.path.join(d, name + ".tir")
    with open(src, "w") as f:
        f.write(mod.script())
    c = os.path.join(d, name + ".c")
    subprocess.run([TIRC, "--emit=c", "--symbol=" + name, src, "-o", c], check=True)
    so = os.path.join(d, name + ".so")
    subprocess.run(["gcc", "-std=c11", "-O3", "-march=native", "-fopenmp", "-Wall", "-Wextra", "-Werror", "-fPIC",
                    "-shared", c, "-o", so, "-lm"], check=True)
    fn = getattr(ctypes.CDLL(so), name)
    fn.restype = ctypes.c_int32
    fn.argtypes = [ctypes.c_void_p] * nargs
    return fn


def main():
    rows = []
    tmp = KEEP or tempfile.mkdtemp(prefix="bench_ops.")
    os.makedirs(tmp, exist_ok=True)
    dev = tvm.cpu()
    for opname, make in OPS:
        if ONLY and opname not in ONLY:
            continue
        tensors, inputs, ref = make()
        want = ref(*inputs)
        base = tvm.IRModule({"main": te.create_prim_func(tensors)})
        for variant in ("unscheduled", "scheduled"):
            mod = base if variant == "unscheduled" else schedule(base)
            name = "%s_%s" % (opname, variant)
            out_shape = [int(x) for x in tensors[-1].shape]
            fn = build_tirc(mod, tmp, name, len(tensors))
            c_in = [aligned(x) for x in inputs]
            c_out = aligned(np.zeros(out_shape, "float32"))
            c_args = [x.ctypes.data for x in c_in] + [c_out.ctypes.data]
            rt = tvm.compile(mod, target="llvm")
            t_args = [tvm.runtime.tensor(x, dev) for x in inputs] + \
                [tvm.runtime.tensor(np.zeros(out_shape, "float32"), dev)]
            if fn(*c_args) != 0:
                raise SystemExit("%s: the generated C returned nonzero" % name)
            rt(*t_args)
            tc, tt = [], []
            for _ in range(RUNS):  # alternately, so that both see the same machine
                t0 = time.perf_counter()
                fn(*c_args)
                tc.append((time.perf_counter() - t0) * 1e3)
                t0 = time.perf_counter()
                rt(*t_args)
                tt.append((time.perf_counter() - t0) * 1e3)
            np.testing.assert_allclose(c_out, want, rtol=1e-3, atol=1e-3, err_msg=name + " (tirc)")
            np.testing.assert_allclose(t_args[-1].numpy(), want, rtol=1e-3, atol=1e-3, err_msg=name + " (TVM)")
            mc, mt = statistics.median(tc), statistics.median(tt)
            rows.append((opname, variant, mc, mt))
            print("%-10s %-11s tirc %9.2f ms  TVM %9.2f ms  %6.2fx" % (opname, variant, mc, mt, mt / mc), flush=True)
    print()
    print("| operator | variant | tirc C ms | TVM LLVM ms | TVM / tirc |")
    print("|---|---|---:|---:|---:|")
    for opname, variant, mc, mt in rows:
        print("| %s | %s | %.2f | %.2f | %.2fx |" % (opname, variant, mc, mt, mt / mc))
    print("(median of %d runs each, alternating; %s threads; gcc -O3 -march=native -fopenmp; "
          "tvm.compile(target=\"llvm\"))" % (RUNS, THREADS))
    bad = [r for r in rows if r[3] / r[2] < 1.0]
    if bad:
        print("below 1.0x TVM: " + ", ".join("%s %s %.2fx" % (r[0], r[1], r[3] / r[2]) for r in bad))


if __name__ == "__main__":
    main()
