"""bench_vs_tvm.py - tirc against apache-tvm on the same inputs and passes.

For each file: the median wall time (ms) of
  - reading TVMScript            (TVM: tvm.script.from_source; tirc: tir_parse)
  - LowerInitBlock + ConvertBlocksToOpaque + CompactBufferAllocation + LowerMatchBuffer
    (TVM: tvm.s_tir.transform, whose compact needs opaque blocks; tirc: the same pipeline)
measured in process on both sides (TVM from Python, tirc with build/bench/bench_passes).

usage: python3 bench/bench_vs_tvm.py [FILE...]
  default: examples/relu.tir, examples/chain.tir, and a generated program of
  STAGES (200) elementwise stages, each staging its rows through a shared
  and a local buffer, with match_buffers over a global and a shared region
  (written to a temporary file; `--stages N` changes N, 0 leaves it out).
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
import tvmref  # noqa: E402


def tvm_times(path, iters):
    import tvm
    src = open(path).read()
    reads, passes = [], []
    seq = tvm.transform.Sequential([tvm.s_tir.transform.LowerInitBlock(),
                                    tvm.s_tir.transform.ConvertBlocksToOpaque(),
                                    tvm.s_tir.transform.CompactBufferAllocation(),
                                    tvm.s_tir.transform.LowerMatchBuffer()])
    for _ in range(iters):
        t0 = time.perf_counter()
        f = tvmref.read(src)
        t1 = time.perf_counter()
        mod = tvmref.as_module(f)
        t2 = time.perf_counter()
        seq(mod)
        t3 = time.perf_counter()
        reads.append((t1 - t0) * 1e3)
        passes.append((t3 - t2) * 1e3)
    return statistics.median(reads), statistics.median(passes)


def tirc_times(path, iters):
    exe = os.path.join(ROOT, "build", "bench", "bench_passes")
    out = subprocess.run([exe, path, "lower_init,to_opaque,compact,lower_match", str(iters)], capture_output=True, text=True,
                         check=True).stdout
    vals = {m.group(1): float(m.group(2)) / 1e3 for m in re.finditer(r"bench_passes: (\w+)\s.*median_us=([\d.]+)", out)}
    return vals["parse"], vals["passes"]


STAGE = """\
    for bx in T.thread_binding(16, thread="blockIdx.x"):
        for tx in T.thread_binding(16, thread="threadIdx.x"):
            with T.block("s{k}_o"):
                T.reads({src}[bx * 16 + tx, 0:64])
                T.writes({dst}[bx * 16 + tx, 0:64])
                s{k}_shared = T.alloc_buffer((256, 64), "float32", scope="shared")
                s{k}_local = T.alloc_buffer((256, 64), "float32", scope="local")
                with T.block("s{k}_load"):
                    T.reads({src}[bx * 16 + tx, 0:64])
                    T.writes(s{k}_shared[bx * 16 + tx, 0:64])
                    g = T.match_buffer({src}[bx * 16 + tx, 0:64], (1, 64), "float32", offset_factor=1)
                    sh = T.match_buffer(s{k}_shared[bx * 16 + tx, 0:64], (1, 64), "float32", scope="shared", offset_factor=1)
                    for j in range(64):
                        with T.block("s{k}_copy"):
                            vj = T.axis.spatial(64, j)
                            T.reads(g[0, vj])
                            T.writes(sh[0, vj])
                            sh[0, vj] = g[0, vj]
                for j in range(64):
                    with T.block("s{k}_compute"):
                        vi = T.axis.spatial(256, bx * 16 + tx)
                        vj = T.axis.spatial(64, j)
                        T.reads(s{k}_shared[vi, vj])
                        T.writes(s{k}_local[vi, vj])
                        s{k}_local[vi, vj] = T.max(s{k}_shared[vi, vj] * T.float32(2), T.float32(0))
                for j in range(64):
                    with T.block("s{k}_store"):
                        vi = T.axis.spatial(256, bx * 16 + tx)
                        vj = T.axis.spatial(64, j)
                        T.reads(s{k}_local[vi, vj])
                        T.writes({dst}[vi, vj])
                        {dst}[vi, vj] = s{k}_local[vi, vj]
"""


def gen_stages(n):
    """TVMScript of n elementwise stages A -> t1 -> ... -> B (n >= 1)"""
    lines = ["from tvm.script import tir as T", "", "", "@T.prim_func",
             'def stages(A: T.Buffer((256, 64), "float32"), B: T.Buffer((256, 64), "float32")):',
             '    T.func_attr({"global_symbol": "stages", "tir.noalias": True})']
    lines += [f'    t{k} = T.alloc_buffer((256, 64), "float32")' for k in range(1, n)]
    body = []
    for k in range(n):
        src = "A" if k == 0 else f"t{k}"
        dst = "B" if k == n - 1 else f"t{k + 1}"
        body.append(STAGE.format(k=k, src=src, dst=dst))
    return "\n".join(lines) + "\n" + "".join(body)


def main():
    if not tvmref.HAVE_TVM:
        print("bench_vs_tvm: SKIPPED, import tvm failed:", tvmref.TVM_ERROR)
        return
    args = sys.argv[1:]
    stages = 200
    if "--stages" in args:
        i = args.index("--stages")
        stages = int(args[i + 1])
        del args[i:i + 2]
    files = [(f, os.path.relpath(f, ROOT), 20, 200) for f in args]
    if not files:
        files = [(os.path.join(ROOT, "examples", n), f"examples/{n}", 20, 200) for n in ("relu.tir", "chain.tir")]
    tmp = None
    if stages > 0 and not args:
        tmp = tempfile.NamedTemporaryFile("w", suffix=".tir", prefix="stages", delete=False)
        tmp.write(gen_stages(stages))
        tmp.close()
        files.append((tmp.name, f"<{stages} stages>", 3, 10))
    print(f"{'file':<28}{'read: tvm ms':>14}{'tirc ms':>10}{'x':>8}{'passes: tvm ms':>16}{'tirc ms':>10}{'x':>8}")
    try:
        for path, name, tvm_iters, tirc_iters in files:
            tr, tp = tvm_times(path, tvm_iters)
            cr, cp = tirc_times(path, tirc_iters)
            print(f"{name:<28}{tr:>14.3f}{cr:>10.3f}{tr / cr:>8.1f}{tp:>16.3f}{cp:>10.3f}{tp / cp:>8.1f}")
    finally:
        if tmp:
            os.unlink(tmp.name)


if __name__ == "__main__":
    main()
