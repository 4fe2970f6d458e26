"""gen_corpus_gpu.py CORPUS OUT TIRC - the corpus's programs scheduled for
CUDA (tests/corpus/gen_corpus.py's *_gpu.tir, *_gpu_ctr.tir: dlight's
schedules of tvm.topi operators), each as tirc's CUDA and TVM's CUDA of the
same text, with a harness that runs both on the same inputs on a GPU and
compares every buffer after (bench/gpu/run_corpus_gpu.sh builds and runs
them there).  Skipped, with the reason: what tirc refuses (the reductions
before LowerCrossThreadReduction), symbolic shapes, TVM kernels with
scalar parameters or more than one kernel."""
import os
import re
import subprocess
import sys

import tvm

corpus, out, tirc = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(out, exist_ok=True)
target = tvm.target.Target({"kind": "cuda", "arch": "sm_90"})
CTYPE = {"float32": "float", "float16": "__half", "int32": "int32_t", "int8": "int8_t", "int64": "int64_t",
         "uint8": "uint8_t", "bool": "bool"}


def launch_dims(mod):
    pipeline, _, _ = tvm.tirx.get_tir_pipeline("default")
    with target:
        lowered = tvm.tirx.transform.SplitHostDevice()(pipeline(tvm.tirx.transform.BindTarget(target)(mod)))
    dims = []
    for gv, f in lowered.functions.items():
        ext = {}
        for tag, n in re.findall(r'launch_thread\("((?:blockIdx|threadIdx)\.[xyz])", (?:T\.int\d+\()?(\d+)', f.script()):
            ext[tag] = max(ext.get(tag, 0), int(n))
        if ext:
            dims.append(([ext.get("blockIdx." + a, 1) for a in "xyz"], [ext.get("threadIdx." + a, 1) for a in "xyz"]))
    return dims


names = []
for fn in sorted(os.listdir(corpus)):
    m = re.fullmatch(r"(\w+_gpu(?:_ctr)?)\.tir", fn)
    if not m:
        continue
    name = m.group(1)
    path = os.path.join(corpus, fn)
    text = open(path).read()
    try:
        mod = tvm.script.from_source(text, check_well_formed=False)
    except Exception:  # noqa: BLE001 - TVM cannot read its own print (`or` in a reducer): it reads tirc's
        try:
            mod = tvm.script.from_source(subprocess.run([tirc, path], capture_output=True, text=True).stdout,
                                         check_well_formed=False)
        except Exception as e:  # noqa: BLE001
            print("skip %s: TVM cannot read it: %s" % (name, str(e).splitlines()[0][:100]))
            continue
    f = mod["main"]
    bufs = []
    for p in f.params:  # TVM 0.27: a buffer parameter is a Var of buffer type
        try:
            p.shape
            bufs.append(p)
        except Exception:  # noqa: BLE001
            pass
    if len(bufs) != len(f.params) or any(not all(isinstance(s, tvm.tirx.IntImm) for s in b.shape) for b in bufs):
        print("skip %s: symbolic shapes or scalar parameters" % name)
        continue
    if any(str(b.dtype) not in CTYPE for b in bufs):
        print("skip %s: a dtype the harness does not fill" % name)
        continue
    r = subprocess.run([tirc, "--emit=cuda", "--symbol=tirc_" + name, path], capture_output=True, text=True)
    if r.returncode:
        print("skip %s: tirc refuses it: %s" % (name, (r.stderr.splitlines() or [""])[0][:120]))
        continue
    open(os.path.join(out, "tirc_%s.cu" % name), "w").write(r.stdout)
    try:
        ex = tvm.compile(mod, target=target)
        cu = ex.mod.imports[0].inspect_source()
        dims = launch_dims(mod)
    except Exception as e:  # noqa: BLE001
        print("skip %s: TVM does not build it: %s" % (name, str(e).splitlines()[0][:120]))
        continue
    sigs = re.findall(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(([^)]*)\)\s*\{', cu)
    if len(sigs) != 1 or len(dims) != 1:
        print("skip %s: %d TVM kernels" % (name, len(sigs)))
        continue
    kname, params = sigs[0]
    args = []
    for p in params.split(","):
        if "*" not in p:
            args = None
            break
        args.append(p.split()[-1].replace("_ptr", ""))
    bnames = [b.name for b in bufs]
    if args is None or any(a not in bnames for a in args):
        print("skip %s: TVM's kernel takes %s" % (name, params))
        continue
    (grid, block), = dims
    open(os.path.join(out, "tvm_%s.cu" % name), "w").write(cu.replace(kname, "tvm_" + name + "_kernel"))
    h = ['#include <cuda_runtime.h>', '#include <cuda_fp16.h>', '#include <cstdio>', '#include <cstdint>',
         '#include <cstring>', '#include <cmath>', '#include <vector>',
         'extern "C" __global__ void tvm_%s_kernel(%s);' % (name, params.strip()),
         'extern "C" int tirc_%s(%s, cudaStream_t);' % (name, ", ".join("%s *" % CTYPE[str(b.dtype)] for b in bufs)),
         'static unsigned long long rng = 88172645463325252ull;',
         'static double frand() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (rng >> 11) * (1.0 / 9007199254740992.0); }',
         'int main() {', '  int bad = 0;']
    for b in bufs:
        n = 1
        for s in b.shape:
            n *= int(s)
        t = CTYPE[str(b.dtype)]
        h.append('  const size_t n_%s = %d;' % (b.name, n))
        h.append('  std::vector<%s> h_%s(n_%s), t_%s(n_%s), v_%s(n_%s);' % (t, b.name, b.name, b.name, b.name, b.name, b.name))
        if "float" in str(b.dtype):
            fill = '(%s)(frand() * 2.0 - 1.0)' % t
        elif str(b.dtype) == "bool":
            fill = 'frand() < 0.5'
        else:  # small ints: valid indices of a take, no overflow
            fill = '(%s)(frand() * 4.0)' % t
        h.append('  for (size_t i = 0; i < n_%s; i++) h_%s[i] = %s;' % (b.name, b.name, fill))
        h.append('  %s *dt_%s, *dv_%s;' % (t, b.name, b.name))
        h.append('  cudaMalloc(&dt_%s, n_%s * sizeof(%s)); cudaMalloc(&dv_%s, n_%s * sizeof(%s));' % (b.name, b.name, t, b.name, b.name, t))
        h.append('  cudaMemcpy(dt_%s, h_%s.data(), n_%s * sizeof(%s), cudaMemcpyHostToDevice);' % (b.name, b.name, b.name, t))
        h.append('  cudaMemcpy(dv_%s, h_%s.data(), n_%s * sizeof(%s), cudaMemcpyHostToDevice);' % (b.name, b.name, b.name, t))
    h.append('  int rc = tirc_%s(%s, 0);' % (name, ", ".join("dt_" + b.name for b in bufs)))
    h.append('  tvm_%s_kernel<<<dim3(%d, %d, %d), dim3(%d, %d, %d)>>>(%s);' % (name, *grid, *block, ", ".join("dv_" + a for a in args)))
    h.append('  cudaError_t e = cudaDeviceSynchronize();')
    h.append('  if (rc || e != cudaSuccess) { printf("%s: launch failed: %%d %%s\\n", rc, cudaGetErrorString(e)); return 1; }' % name)
    for b in bufs:
        t = CTYPE[str(b.dtype)]
        h.append('  cudaMemcpy(t_%s.data(), dt_%s, n_%s * sizeof(%s), cudaMemcpyDeviceToHost);' % (b.name, b.name, b.name, t))
        h.append('  cudaMemcpy(v_%s.data(), dv_%s, n_%s * sizeof(%s), cudaMemcpyDeviceToHost);' % (b.name, b.name, b.name, t))
        if "float" in str(b.dtype):
            tol = "1e-3" if "16" in str(b.dtype) else "1e-5"
            h.append('  for (size_t i = 0; i < n_%s; i++) { double x = (double)(float)t_%s[i], y = (double)(float)v_%s[i];'
                     ' if (!(fabs(x - y) <= %s * (1 + fabs(y)) || (std::isnan(x) && std::isnan(y)))) { if (bad++ < 5) printf("%s: %s[%%zu] tirc %%g TVM %%g\\n", i, x, y); } }'
                     % (b.name, b.name, b.name, tol, name, b.name))
        else:
            h.append('  if (memcmp(t_%s.data(), v_%s.data(), n_%s * sizeof(%s))) { bad++; printf("%s: %s differs\\n"); }'
                     % (b.name, b.name, b.name, t, name, b.name))
    h.append('  printf("%%s %s: %s\\n", bad ? "FAIL" : "ok");' % (name, ", ".join("%s %s" % (b.name, b.dtype) for b in bufs)))
    h.append('  return bad ? 1 : 0;')
    h.append('}')
    open(os.path.join(out, "main_%s.cu" % name), "w").write("\n".join(h) + "\n")
    names.append(name)
open(os.path.join(out, "programs.txt"), "w").write("\n".join(names) + "\n")
print("%d programs: tirc's CUDA and TVM's, with their harnesses, in %s" % (len(names), out))
