"""gen_gpu.py OUT TIRC - the GPU benchmark's inputs, made here (TVM, no GPU
needed) for bench/gpu/run_gpu.sh to build and run on a GPU machine.

Three programs from tvm.topi via te.create_prim_func, scheduled for CUDA
by TVM's default GPU rules (dlight, sm_90) unless said:
  relu   - topi.nn.relu over 64 Mi float32 (256 MiB each way): one element
           a thread, as dlight's fallback rule binds it;
  relu_vec - the same relu scheduled here: 256 threads a block, 4
           elements a thread in a T.vectorized loop (float4 accesses);
  matmul - topi.matmul, 4096 x 4096 x 4096 float32 (dlight.gpu.Matmul:
           shared-memory tiles fetched cooperatively, local accumulators,
           auto-unroll pragma).
For each: OUT/NAME_sched.tir (TVM's print of the scheduled TIR), OUT/tvm_NAME.cu
(the CUDA source tvm.compile(target=cuda, arch sm_90) generates from it),
OUT/tirc_NAME.cu (tirc --emit=cuda of the same text: its default pipeline,
then its CUDA), and OUT/tvm_NAME_launch.h (TVM's kernel launched with the
grid and block of TVM's own lowered device function)."""
import os
import re
import subprocess
import sys

import tvm
from tvm import te, topi
from tvm.s_tir import dlight as dl

out, tirc = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
target = tvm.target.Target({"kind": "cuda", "arch": "sm_90"})


def schedule(f):
    with target:
        return dl.ApplyDefaultSchedule(dl.gpu.Matmul(), dl.gpu.GEMV(), dl.gpu.Reduction(),
                                       dl.gpu.GeneralReduction(), dl.gpu.Fallback())(tvm.IRModule({"main": f}))


def launch_dims(mod):
    """grid and block of each device kernel, read off TVM's own lowering
    (the launch_thread extents of the device functions after SplitHostDevice)"""
    dims = {}
    pipeline, _, _ = tvm.tirx.get_tir_pipeline("default")
    with target:
        lowered = tvm.tirx.transform.SplitHostDevice()(pipeline(tvm.tirx.transform.BindTarget(target)(mod)))
    for gv, f in lowered.functions.items():
        ext = {}
        for tag, n in re.findall(r'launch_thread\("((?:blockIdx|threadIdx)\.[xyz])", (?:T\.int\d+\()?(\d+)', f.script()):
            if ext.setdefault(tag, int(n)) != int(n):
                sys.exit("%s: %s launched with two extents" % (gv.name_hint, tag))
        if any(t.startswith(("threadIdx", "blockIdx")) for t in ext):
            g = [ext.get("blockIdx." + a, 1) for a in "xyz"]
            b = [ext.get("threadIdx." + a, 1) for a in "xyz"]
            dims[gv.name_hint] = (g, b)
    return dims


N = 64 * 1024 * 1024
A = te.placeholder((N,), "float32", name="A")
relu = te.create_prim_func([A, topi.nn.relu(A)])
M = 4096
X = te.placeholder((M, M), "float32", name="X")
W = te.placeholder((M, M), "float32", name="W")
matmul = te.create_prim_func([X, W, topi.matmul(X, W)])

def relu_vec_schedule(f):
    """relu with float4 accesses: the fused loop split (blocks, 256
    threads, 4 vectorized), bound and vectorized"""
    sch = tvm.s_tir.Schedule(tvm.IRModule({"main": f}))
    (i,) = sch.get_loops(sch.get_sblock("compute"))
    bx, tx, v = sch.split(i, [None, 256, 4])
    sch.bind(bx, "blockIdx.x")
    sch.bind(tx, "threadIdx.x")
    sch.vectorize(v)
    return sch.mod


for name, mod in [("relu", schedule(relu)), ("relu_vec", relu_vec_schedule(relu)), ("matmul", schedule(matmul))]:
    text = mod.script()
    src = os.path.join(out, name + "_sched.tir")
    open(src, "w").write(text)
    ex = tvm.compile(mod, target=target)
    cu = ex.mod.imports[0].inspect_source()
    open(os.path.join(out, "tvm_" + name + ".cu"), "w").write(cu)
    r = subprocess.run([tirc, "--emit=cuda", "--symbol=tirc_" + name, src], capture_output=True, text=True)
    if r.returncode:
        sys.exit("tirc failed on %s:\n%s" % (src, r.stderr))
    open(os.path.join(out, "tirc_" + name + ".cu"), "w").write(r.stdout)
    # TVM's kernels, launched with TVM's own grid and block, their
    # parameters (NAME_ptr) mapped to the harness's buffers by name
    dims = launch_dims(mod)
    sigs = re.findall(r'extern "C" __global__ void __launch_bounds__\((\d+)\) (\w+)\(([^)]*)\)\s*\{', cu)
    if len(sigs) != 1 or len(dims) != 1:
        sys.exit("%s: expected one TVM kernel, found %d signatures and %d device functions" % (name, len(sigs), len(dims)))
    bounds, kname, params = sigs[0]
    (grid, block), = dims.values()
    if int(bounds) != block[0] * block[1] * block[2]:
        sys.exit("%s: TVM's __launch_bounds__(%s) is not its block %s" % (name, bounds, block))
    args = [p.split()[-1].replace("_ptr", "") for p in params.split(",")]
    with open(os.path.join(out, "tvm_" + name + "_launch.h"), "w") as h:
        h.write('#include "tvm_%s.cu"\n' % name)
        h.write("#define TVM_LAUNCH(stream) %s<<<dim3(%d, %d, %d), dim3(%d, %d, %d), 0, stream>>>(%s)\n"
                % (kname, *grid, *block, ", ".join(args)))
    print("%s: TVM kernel %s grid %s block %s (%s)" % (name, kname, grid, block, ", ".join(args)))
