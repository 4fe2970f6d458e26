"""gen_corpus.py DIR [TIRC] - TIR written by the installed apache-tvm: tvm.topi
operators through te.create_prim_func at static and symbolic shapes, and
each stage of TVM's lowering after them, as mod.script() prints them; and
the same operators scheduled for CUDA by TVM's default GPU rules (dlight),
with their stages."""
import lazy_stack  # noqa: F401  (before TVM reads a text)
import tvm, os, subprocess, sys, traceback
from tvm import te, topi
out = sys.argv[1]
tirc = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
os.makedirs(out, exist_ok=True)
def P(*shape, dtype="float32", name="A"): return te.placeholder(shape, dtype=dtype, name=name)
n = te.var("n")
cases = {
 "relu": lambda: [(A := P(16, 32)), topi.nn.relu(A)],
 "softmax": lambda: [(A := P(8, 64)), topi.nn.softmax(A)],
 "matmul": lambda: [(A := P(32, 64)), (B := P(64, 16, name="B")), topi.matmul(A, B)],
 "conv2d": lambda: [(A := P(1, 3, 16, 16)), (W := P(8, 3, 3, 3, name="W")), topi.nn.conv2d_nchw(A, W, 1, 1, 1)],
 "pool": lambda: [(A := P(1, 4, 16, 16)), topi.nn.pool2d(A, (2, 2), (2, 2), (1, 1), (0, 0, 0, 0), "max")],
 "layer_norm": lambda: [(A := P(4, 32)), (G := P(32, name="G")), (B := P(32, name="B")), topi.nn.layer_norm(A, G, B, [1])],
 "transpose": lambda: [(A := P(8, 16)), topi.transpose(A)],
 "reshape": lambda: [(A := P(8, 16)), topi.reshape(A, (16, 8))],
 "concat": lambda: [(A := P(4, 8)), (B := P(4, 8, name="B")), topi.concatenate([A, B], 1)],
 "sum": lambda: [(A := P(8, 16)), topi.sum(A, axis=1)],
 "argmax": lambda: [(A := P(8, 16)), topi.argmax(A, axis=1)],
 "exp_sym": lambda: [(A := te.placeholder((n, 16), name="A")), topi.exp(A)],
 "add_sym": lambda: [(A := te.placeholder((n,), name="A")), (B := te.placeholder((n,), name="B")), topi.add(A, B)],
 "pad": lambda: [(A := P(4, 4)), topi.nn.pad(A, (1, 1), (1, 1))],
 "cast_i8": lambda: [(A := P(16)), topi.cast(A, "int8")],
 "where": lambda: [(A := P(16)), (B := P(16, name="B")), topi.where(A > B, A, B)],
 "take": lambda: [(A := P(16)), (I := P(4, dtype="int32", name="I")), topi.take(A, I)],
 "dense": lambda: [(A := P(4, 32)), (W := P(8, 32, name="W")), topi.nn.dense(A, W)],
 "batch_matmul": lambda: [(A := P(2, 4, 8)), (B := P(2, 8, 4, name="B")), topi.nn.batch_matmul(A, B, transpose_b=False)],
 "upsample": lambda: [(A := P(1, 2, 4, 4)), topi.image.resize2d(A, (0, 0, 4, 4), (8, 8), method="nearest_neighbor")],
 "strided_slice": lambda: [(A := P(16, 16)), topi.strided_slice(A, [0, 2], [16, 14], [2, 1])],
 "topk_free": lambda: [(A := P(4, 4)), topi.nn.log_softmax(A)],
 "fp16_add": lambda: [(A := P(16, dtype="float16")), (B := P(16, dtype="float16", name="B")), topi.add(A, B)],
 "bitwise": lambda: [(A := P(16, dtype="int32")), (B := P(16, dtype="int32", name="B")), topi.bitwise_and(A, B)],
 "mean": lambda: [(A := P(8, 16)), topi.mean(A, axis=1)],
}
ok = 0
def dlight(mod):
    """TVM's default GPU schedule rules (dlight) for CUDA: thread bindings,
    shared and local staging, cross-thread reductions, vectorized loops"""
    from tvm.s_tir import dlight as dl
    with tvm.target.Target("cuda"):
        return dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.GEMV(), dl.gpu.Reduction(),
                                       dl.gpu.GeneralReduction(), dl.gpu.Fallback())(mod)


def save(path, mod):
    """the print; and where TVM cannot read its own print back, whether tirc
    reads it right: TVM's reading of tirc's print (without TVM's
    well-formedness check) must equal the reference below (unreadable.txt:
    name, "equal" / "refused" / "DIFFERS", detail)"""
    text = mod.script()
    open(path, "w").write(text)
    try:
        tvm.script.from_source(text)
        return
    except Exception:  # noqa: BLE001
        pass
    if not tirc:
        return
    # what tirc's print must read as: TVM's reading of its own print where
    # only the well-formedness check refuses it (the print may lose what the
    # module holds, e.g. an attr on a loop var outside its loop), else the
    # module itself
    try:
        ref = tvm.script.from_source(text, check_well_formed=False)
    except Exception:  # noqa: BLE001
        ref = mod
    r = subprocess.run([tirc, path], capture_output=True, text=True, timeout=60)
    if r.returncode:
        res = ("refused", r.stderr.strip().splitlines()[0][:160] if r.stderr.strip() else f"exit {r.returncode}")
    else:
        try:
            # free vars (an attr on a loop var outside its loop, as TVM reads it) map in order
            tvm.ir.assert_structural_equal(tvm.script.from_source(r.stdout, check_well_formed=False), ref,
                                           map_free_vars=True)
            res = ("equal", "")
        except Exception as e:  # noqa: BLE001
            res = ("DIFFERS", [l for l in str(e).splitlines() if l.strip()][0][:160])
    with open(os.path.join(out, "unreadable.txt"), "a") as f:
        f.write(f"{os.path.basename(path)}\t{res[0]}\t{res[1]}\n")


def emit(name, mod):
    save(os.path.join(out, name + ".tir"), mod)
    # TVM's lowering pipeline, printed after selected passes
    seq = [tvm.s_tir.transform.LowerInitBlock(), tvm.s_tir.transform.PlanAndUpdateBufferAllocationLocation(),
           tvm.s_tir.transform.ConvertBlocksToOpaque(), tvm.s_tir.transform.CompactBufferAllocation(),
           tvm.s_tir.transform.LowerMatchBuffer(), tvm.s_tir.transform.LowerOpaqueBlock(), tvm.tirx.transform.FlattenBuffer(),
           tvm.tirx.transform.StmtSimplify(), tvm.tirx.transform.RemoveNoOp(), tvm.tirx.transform.LowerIntrin()]
    m = mod
    for i, p in enumerate(seq):
        try:
            if p.info.name == "tirx.LowerIntrin":
                # TVM's LowerIntrin takes the target from the function (printed
                # without it: tirc's lower_intrin is given the same text)
                tgt = tvm.target.Target("cuda" if name.endswith(("_gpu", "_gpu_ctr")) else "c")
                m = p(tvm.IRModule({g: f.with_attr("target", tgt) for g, f in m.functions_items()}))
                m = tvm.IRModule({g: f.without_attr("target") for g, f in m.functions_items()})
            else:
                m = p(m)
        except Exception as e:  # noqa: BLE001
            print("stage", name, p.info.name, str(e).strip().splitlines()[-1][:100])
            break
        save(os.path.join(out, f"{name}.{i+1}.{p.info.name}.tir"), m)


gpu = 0
nctr = 0
for name, f in cases.items():
    try:
        ts = f()
        fn = te.create_prim_func(ts)
        mod = tvm.IRModule({"main": fn})
        emit(name, mod)
        ok += 1
    except Exception as e:
        print("skip", name, str(e).splitlines()[-1][:100])
        continue
    try:
        before = mod.script()
        sched = dlight(mod)
        if sched.script() != before:
            emit(name + "_gpu", sched)
            gpu += 1
            # the cross-thread reductions lowered: T.comm_reducer, T.tvm_thread_allreduce
            ctr = tvm.s_tir.transform.LowerCrossThreadReduction()(sched)
            if ctr.script() != sched.script():
                emit(name + "_gpu_ctr", ctr)
                nctr += 1
    except Exception as e:
        print("skip", name + "_gpu", str(e).splitlines()[-1][:100])
print("generated", ok, "operators,", gpu, "of them also scheduled for CUDA by dlight,", nctr,
      "of those with cross-thread reductions, also after LowerCrossThreadReduction")
