"""topi_sweep.py TIRC [--full] - more of tvm.topi than gen_corpus.py's programs:
about 140 operators (every unary and binary elementwise op, reductions,
shape and index ops, scans and sorts, convolutions, pools, norms, image
ops, symbolic shapes), each through te.create_prim_func as TVM prints it,
and again scheduled for a GPU by dlight.

For each: tirc reads it and TVM's reading of tirc's print is structurally
equal to TVM's (a failure otherwise); each unscheduled one goes through
the default pipeline with --verify-exec (every pass checked by running;
a program whose random inputs index out of bounds, a gather's indices, or
that calls a packed function, is counted as not run); each scheduled one
is emitted as CUDA, where a refusal must be a located error (with --full
the CUDA is also built by nvcc).  Prints the counts.
"""
import os
import re
import subprocess
import sys
import tempfile

import lazy_stack  # noqa: F401  (before TVM reads a text)
import tvm
from tvm import te, topi


def P(*s, dtype="float32", name="A"):
    return te.placeholder(s, dtype=dtype, name=name)


U = ["abs","acos","acosh","asin","asinh","atan","atanh","ceil","cos","cosh","erf","exp","fast_erf","fast_exp","fast_tanh","floor","isfinite","isinf","isnan","log","log10","log2","negative","round","rsqrt","sigmoid","sign","sin","sinh","sqrt","tan","tanh","trunc","identity"]
B = ["add","subtract","multiply","divide","floor_divide","floor_mod","maximum","minimum","power","atan2","equal","not_equal","greater","less","greater_equal","less_equal","log_add_exp","mod"]
IB = ["bitwise_and","bitwise_or","bitwise_xor","left_shift","right_shift","logical_and","logical_or","logical_xor"]
cases = {}
for u in U: cases["u_"+u] = lambda u=u: [(A:=P(4, 8)), getattr(topi, u)(A)]
for b in B: cases["b_"+b] = lambda b=b: [(A:=P(4, 8)), (Bb:=P(1, 8, name="B")), getattr(topi, b)(A, Bb)]
for b in IB: cases["i_"+b] = lambda b=b: [(A:=P(4, 8, dtype="int32" if "logical" not in b else "bool")), (Bb:=P(4, 8, dtype="int32" if "logical" not in b else "bool", name="B")), getattr(topi, b)(A, Bb)]
cases.update({
 "bitwise_not": lambda: [(A:=P(8, dtype="int32")), topi.bitwise_not(A)],
 "logical_not": lambda: [(A:=P(8, dtype="bool")), topi.logical_not(A)],
 "clip": lambda: [(A:=P(4, 8)), topi.clip(A, -1.0, 1.0)],
 "cast_f16": lambda: [(A:=P(4, 8)), topi.cast(A, "float16")],
 "reinterpret": lambda: [(A:=P(4, 8)), topi.reinterpret(A, "int32")],
 "argmin": lambda: [(A:=P(4, 8)), topi.argmin(A, axis=1)],
 "max": lambda: [(A:=P(4, 8)), topi.max(A, axis=0)],
 "min": lambda: [(A:=P(4, 8)), topi.min(A, axis=1, keepdims=True)],
 "prod": lambda: [(A:=P(4, 8)), topi.prod(A)],
 "all": lambda: [(A:=P(4, 8, dtype="bool")), topi.all(A, axis=1)],
 "any": lambda: [(A:=P(4, 8, dtype="bool")), topi.any(A, axis=0)],
 "broadcast_to": lambda: [(A:=P(1, 8)), topi.broadcast_to(A, (4, 8))],
 "expand_dims": lambda: [(A:=P(4, 8)), topi.expand_dims(A, 1, 2)],
 "squeeze": lambda: [(A:=P(4, 1, 8)), topi.squeeze(A, [1])],
 "flip": lambda: [(A:=P(4, 8)), topi.flip(A, 1)],
 "tile": lambda: [(A:=P(2, 3)), topi.tile(A, (2, 2))],
 "repeat": lambda: [(A:=P(2, 3)), topi.repeat(A, 2, 1)],
 "stack": lambda: [(A:=P(2, 3)), (Bb:=P(2, 3, name="B")), topi.stack([A, Bb], 0)],
 "split": lambda: [(A:=P(4, 6)), *topi.split(A, 3, 1)],
 "gather": lambda: [(A:=P(4, 6)), (I:=P(4, 2, dtype="int32", name="I")), topi.gather(A, 1, I)],
 "gather_nd": lambda: [(A:=P(4, 6)), (I:=P(2, 3, dtype="int32", name="I")), topi.gather_nd(A, I)],
 "one_hot": lambda: [(I:=P(4, dtype="int32", name="I")), topi.one_hot(I, tvm.tirx.const(1.0), tvm.tirx.const(0.0), 5, -1, "float32")],
 "full": lambda: [topi.full((3, 4), "float32", 1.5)],
 "full_like": lambda: [(A:=P(3, 4)), topi.full_like(A, 2.0)],
 "arange": lambda: [topi.arange(0, 10, 2, "float32")],
 "trilu": lambda: [(A:=P(4, 4)), topi.trilu(A, tvm.tirx.const(0, "int32"), True)],
 "matrix_set_diag": lambda: [(A:=P(4, 4)), (D:=P(4, name="D")), topi.matrix_set_diag(A, D)],
 "sequence_mask": lambda: [(A:=P(5, 3)), (L:=P(3, dtype="int32", name="L")), topi.sequence_mask(A, L, 0.0, 0)],
 "layout_transform": lambda: [(A:=P(1, 8, 4, 4)), topi.layout_transform(A, "NCHW", "NCHW4c")],
 "einsum": lambda: [(A:=P(4, 5)), (Bb:=P(5, 6, name="B")), topi.einsum("ij,jk->ik", A, Bb)],
 "tensordot": lambda: [(A:=P(4, 5)), (Bb:=P(5, 6, name="B")), topi.tensordot(A, Bb, 1)],
 "eye": lambda: [topi.eye(4, 4, 0, "float32")],
 "meshgrid": lambda: [(A:=P(3)), (Bb:=P(4, name="B")), *topi.meshgrid([A, Bb], "ij")],
 "elemwise_sum": lambda: [(A:=P(4)), (Bb:=P(4, name="B")), topi.elemwise_sum([A, Bb])],
 "where_sc": lambda: [(C:=P(4, dtype="bool", name="C")), (A:=P(4)), (Bb:=P(4, name="B")), topi.where(C, A, Bb)],
 "adv_index": lambda: [(A:=P(4, 6)), (I:=P(3, dtype="int64", name="I")), topi.adv_index(A, [I])],
 "scatter_elements": lambda: [(A:=P(4, 6)), (I:=P(2, 6, dtype="int32", name="I")), (U2:=P(2, 6, name="U")), topi.scatter_elements(A, I, U2, 0)],
 "unravel_index": lambda: [(I:=P(3, dtype="int32", name="I")), (S:=P(2, dtype="int32", name="S")), topi.unravel_index(I, S)],
 "slice_scatter": lambda: [(A:=P(8, 4)), (S:=P(2, 4, name="S")), topi.slice_scatter(A, S, tvm.tirx.const(0), tvm.tirx.const(2), tvm.tirx.const(4), tvm.tirx.const(1))],
 "collapse_sum": lambda: [(A:=P(4, 8)), topi.collapse_sum(A, (8,))],
 "dft": lambda: [(R:=P(1, 8, name="R")), (I:=P(1, 8, name="I")), *topi.dft(R, I, False)],
 "cumsum": lambda: [(A:=P(4, 8)), topi.cumsum(A, 1)],
 "cumprod": lambda: [(A:=P(4, 8)), topi.cumprod(A, 1)],
 "sort": lambda: [(A:=P(4, 8)), topi.sort(A, 1)],
 "argsort": lambda: [(A:=P(4, 8)), topi.argsort(A, 1)],
 "topk": lambda: [(A:=P(4, 8)), *topi.topk(A, 2, 1)],
 "searchsorted": lambda: [(A:=P(8)), (V:=P(4, name="V")), topi.searchsorted(A, V)],
 "nn_conv1d": lambda: [(A:=P(1, 2, 16)), (W:=P(4, 2, 3, name="W")), topi.nn.conv1d_ncw(A, W, 1, 1, 1)],
 "nn_conv3d": lambda: [(A:=P(1, 2, 4, 6, 6)), (W:=P(2, 2, 3, 3, 3, name="W")), topi.nn.conv3d_ncdhw(A, W, 1, 1, 1)],
 "nn_dwconv": lambda: [(A:=P(1, 4, 8, 8)), (W:=P(4, 1, 3, 3, name="W")), topi.nn.depthwise_conv2d_nchw(A, W, 1, 1, 1)],
 "nn_conv2d_nhwc": lambda: [(A:=P(1, 8, 8, 4)), (W:=P(3, 3, 4, 8, name="W")), topi.nn.conv2d_nhwc(A, W, 1, 1, 1)],
 "nn_conv2d_transpose": lambda: [(A:=P(1, 4, 6, 6)), (W:=P(4, 2, 3, 3, name="W")), topi.nn.conv2d_transpose_nchw(A, W, (2, 2), (1, 1), "float32", (0, 0))],
 "nn_group_conv": lambda: [(A:=P(1, 4, 8, 8)), (W:=P(4, 2, 3, 3, name="W")), topi.nn.group_conv2d_nchw(A, W, 1, 1, 1, 2)],
 "nn_avgpool": lambda: [(A:=P(1, 4, 8, 8)), topi.nn.pool2d(A, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "avg")],
 "nn_adaptive_pool": lambda: [(A:=P(1, 4, 9, 9)), topi.nn.adaptive_pool(A, (4, 4), "avg")],
 "nn_global_pool": lambda: [(A:=P(1, 4, 8, 8)), topi.nn.global_pool(A, "max")],
 "nn_pool1d": lambda: [(A:=P(1, 4, 16)), topi.nn.pool1d(A, (3,), (2,), (1,), (1, 1), "max")],
 "nn_pool3d": lambda: [(A:=P(1, 2, 4, 8, 8)), topi.nn.pool3d(A, (2, 2, 2), (2, 2, 2), (1, 1, 1), (0,) * 6, "avg")],
 "nn_lrn": lambda: [(A:=P(1, 8, 4, 4)), topi.nn.lrn(A, 3, 1, 0.0001, 0.75, 2.0)],
 "nn_l2norm": lambda: [(A:=P(1, 8, 4, 4)), topi.nn.l2_normalize(A, 1e-5, [1])],
 "nn_batch_norm": lambda: [(A:=P(2, 4, 3)), (G:=P(4, name="G")), (Bb:=P(4, name="B")), (M:=P(4, name="M")), (V:=P(4, name="V")), *topi.nn.batch_norm(A, G, Bb, M, V)[:1]],
 "nn_group_norm": lambda: [(A:=P(2, 4, 3)), (G:=P(4, name="G")), (Bb:=P(4, name="B")), topi.nn.group_norm(A, G, Bb, 2, 1, [2])],
 "nn_instance_norm": lambda: [(A:=P(2, 4, 3)), (G:=P(4, name="G")), (Bb:=P(4, name="B")), topi.nn.instance_norm(A, G, Bb, 1, [2])],
 "nn_rms_norm": lambda: [(A:=P(4, 8)), (G:=P(8, name="G")), topi.nn.rms_norm(A, G, [1])],
 "nn_leaky_relu": lambda: [(A:=P(4, 8)), topi.nn.leaky_relu(A, 0.1)],
 "nn_prelu": lambda: [(A:=P(1, 4, 3, 3)), (S:=P(4, name="S")), topi.nn.prelu(A, S)],
 "nn_gelu": lambda: [(A:=P(4, 8)), topi.nn.gelu(A)] if hasattr(topi.nn, "gelu") else [(A:=P(4)), topi.exp(A)],
 "nn_dilate": lambda: [(A:=P(1, 2, 4, 4)), topi.nn.dilate(A, (1, 1, 2, 2))],
 "nn_mirror_pad": lambda: [(A:=P(4, 4)), topi.nn.mirror_pad(A, (1, 1), (1, 1))],
 "nn_space_to_depth": lambda: [(A:=P(1, 4, 4, 4)), topi.nn.space_to_depth(A, 2)],
 "nn_depth_to_space": lambda: [(A:=P(1, 16, 2, 2)), topi.nn.depth_to_space(A, 2)],
 "nn_upsampling": lambda: [(A:=P(1, 2, 4, 4)), topi.nn.upsampling(A, 2, 2)],
 "nn_fifo": lambda: [(A:=P(4, 8)), topi.nn.fast_softmax(A)],
 "nn_log_softmax": lambda: [(A:=P(4, 8)), topi.nn.log_softmax(A)],
 "nn_matmul_tt": lambda: [(A:=P(8, 4)), (Bb:=P(6, 8, name="B")), topi.nn.matmul(A, Bb, transpose_a=True, transpose_b=True)],
 "nn_bias_add_dense": lambda: [(A:=P(4, 8)), (W:=P(6, 8, name="W")), (Bb:=P(6, name="B")), topi.nn.dense(A, W, Bb)],
 "nn_softmax_axis0": lambda: [(A:=P(4, 8)), topi.nn.softmax(A, 0)],
 "nn_nll_loss": lambda: [(A:=P(4, 5)), (T_:=P(4, dtype="int64", name="T")), (W:=P(5, name="W")), topi.nn.nll_loss(A, T_, W, "mean", -100)],
 "image_resize_linear": lambda: [(A:=P(1, 2, 4, 4)), topi.image.resize2d(A, (0, 0, 4, 4), (7, 7), method="linear")],
 "image_resize_cubic": lambda: [(A:=P(1, 2, 4, 4)), topi.image.resize2d(A, (0, 0, 4, 4), (6, 6), method="cubic")],
 "image_crop_resize": lambda: [(A:=P(1, 2, 8, 8)), (Bx:=P(2, 4, name="Bx")), (I:=P(2, dtype="int32", name="I")), topi.image.crop_and_resize(A, Bx, I, (4, 4))],
 "image_affine_grid": lambda: [(A:=P(1, 2, 3)), topi.image.affine_grid(A, (4, 4))],
 "image_grid_sample": lambda: [(A:=P(1, 2, 4, 4)), (G:=P(1, 2, 3, 3, name="G")), topi.image.grid_sample(A, G)],
 "strided_set": lambda: [(A:=P(8,)), (V:=P(4, name="V")), (B0:=P(1, dtype="int64", name="B0")), (E:=P(1, dtype="int64", name="E")), (S:=P(1, dtype="int64", name="S")), topi.strided_set(A, V, B0, E, S)],
 "sym_sum": lambda: [(A:=te.placeholder((tvm.tirx.Var("n", "int64"), 8), name="A")), topi.sum(A, axis=1)],
 "sym_matmul": lambda: [(A:=te.placeholder((tvm.tirx.Var("m", "int32"), 16), name="A")), (Bb:=P(16, 8, name="B")), topi.matmul(A, Bb)],
 "sym_softmax_i64": lambda: [(A:=te.placeholder((tvm.tirx.Var("n", "int64"), tvm.tirx.Var("k", "int64")), name="A")), topi.nn.softmax(A)],
})


# dlight crashes TVM 0.27's process on these (an FFI type-info abort)
NO_DLIGHT = {"nn_group_norm", "nn_instance_norm", "nn_batch_norm", "nn_rms_norm", "nn_lrn"}


def programs():
    from tvm.s_tir import dlight as dl
    out = []
    for name, fn in cases.items():
        try:
            mod = tvm.IRModule({"main": te.create_prim_func(fn())})
        except Exception:  # noqa: BLE001 (an operator te.create_prim_func does not take at this TVM)
            continue
        out.append((name, mod.script()))
        if name in NO_DLIGHT:
            continue
        try:
            with tvm.target.Target("cuda"):
                sch = dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.GEMV(), dl.gpu.Reduction(),
                                              dl.gpu.GeneralReduction(), dl.gpu.Fallback())(mod)
            out.append((name + "_gpu", sch.script()))
        except Exception:  # noqa: BLE001
            pass
    return out


def main():
    tirc = os.path.abspath(sys.argv[1])
    full = "--full" in sys.argv[2:]
    from tvm.script import from_source
    progs = programs()
    n_eq = n_run = n_norun = n_cuda = fail = 0
    refused = {}
    with tempfile.TemporaryDirectory() as d:
        for name, text in progs:
            src = os.path.join(d, name + ".tir")
            with open(src, "w") as fh:
                fh.write(text)
            p = subprocess.run([tirc, "--passes=", src], capture_output=True, text=True, timeout=60)
            try:
                if p.returncode != 0:
                    raise RuntimeError("tirc exit %d: %s" % (p.returncode, p.stderr.strip().splitlines()[:1]))
                tvm.ir.assert_structural_equal(from_source(text), from_source(p.stdout), map_free_vars=True)
                n_eq += 1
            except Exception as e:  # noqa: BLE001
                fail += 1
                print("FAIL topi_sweep %s: %s" % (name, [l for l in str(e).splitlines() if l.strip()][0][:200]))
                continue
            if not name.endswith("_gpu"):
                p = subprocess.run([tirc, "--passes=default", "--verify-exec", src, "-o", os.devnull],
                                   capture_output=True, text=True, timeout=120)
                if p.returncode == 0:
                    n_run += 1
                elif p.returncode == 1 and "cannot be run on its input" in p.stderr and \
                        ("out-of-bounds access" in p.stderr or "cannot run T.call_packed" in p.stderr
                         or "shifts by 0 to" in p.stderr):
                    n_norun += 1
                else:
                    fail += 1
                    print("FAIL topi_sweep %s: --verify-exec: %s" % (name, p.stderr.strip().splitlines()[:1]))
                continue
            cu = os.path.join(d, name + ".cu")
            p = subprocess.run([tirc, "--emit=cuda", src, "-o", cu], capture_output=True, text=True, timeout=120)
            if p.returncode == 0:
                n_cuda += 1
                if full:
                    nv = subprocess.run(["nvcc", "-arch=sm_80", "-Werror", "all-warnings", "-c", cu, "-o", cu + ".o"],
                                        capture_output=True, text=True)
                    if nv.returncode != 0:
                        fail += 1
                        print("FAIL topi_sweep %s: nvcc: %s" % (name, nv.stderr[:300]))
                continue
            errs = [l for l in p.stderr.splitlines() if re.search(r":\d+:\d+: error: ", l)]
            if p.returncode != 1 or not errs:
                fail += 1
                print("FAIL topi_sweep %s: --emit=cuda exit %d without a located error" % (name, p.returncode))
                continue
            why = re.sub(r"^.*?error: ", "", errs[0])
            why = re.sub(r"line \d+", "line N", re.sub(r" to [A-Za-z_0-9]+ at", " to X at", why))[:90]
            refused.setdefault(why, []).append(name)
    print("topi_sweep: %d programs (of %d operators tried): %d round-trip equal; %d unscheduled verified pass by pass by "
          "running, %d not run (data-dependent indices, packed calls); %d scheduled emitted as CUDA%s, refused:" %
          (len(progs), len(cases), n_eq, n_run, n_norun, n_cuda, " and built by nvcc" if full else ""))
    for why, names in sorted(refused.items()):
        print("  %d: %s (%s)" % (len(names), why, ", ".join(names)))
    print("topi_sweep: %d failed" % fail)
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
