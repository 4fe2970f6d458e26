"""bench_vs_tvm.py - tirc against apache-tvm on the same inputs and passes.

For each file: the median wall time (ms) of
  - reading TVMScript            (TVM: tvm.script.from_source; tirc: tir_parse)
  - LowerInitBlock + ConvertBlocksToOpaque + CompactBufferAllocation + LowerMatchBuffer
    (TVM: tvm.s_tir.transform, whose compact needs opaque blocks; tirc: the same pipeline)
measured in process on both sides (TVM from Python, tirc with build/bench/bench_passes).

usage: python3 bench/bench_vs_tvm.py [FILE...]   (default: examples/relu.tir examples/chain.tir)
"""
import os
import re
import statistics
import subprocess
import sys
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


def main():
    if not tvmref.HAVE_TVM:
        print("bench_vs_tvm: SKIPPED, import tvm failed:", tvmref.TVM_ERROR)
        return
    files = sys.argv[1:] or [os.path.join(ROOT, "examples", "relu.tir"), os.path.join(ROOT, "examples", "chain.tir")]
    print(f"{'file':<28}{'read: tvm ms':>14}{'tirc ms':>10}{'x':>8}{'passes: tvm ms':>16}{'tirc ms':>10}{'x':>8}")
    for f in files:
        tr, tp = tvm_times(f, 20)
        cr, cp = tirc_times(f, 200)
        print(f"{os.path.relpath(f, ROOT):<28}{tr:>14.3f}{cr:>10.3f}{tr / cr:>8.1f}{tp:>16.3f}{cp:>10.3f}{tp / cp:>8.1f}")


if __name__ == "__main__":
    main()
