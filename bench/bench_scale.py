"""bench_scale.py - tirc and TVM on programs of N independent stages
(bench/gen_stages.py: blocks with alloc_buffers, match_buffers and
reductions), in one run: medians of RUNS runs, wall ms.

  tirc whole      the tirc process: read + default pipeline + print (C)
  tirc passes     the default pipeline alone (tirc --time-passes, passes rows)
  TVM passes      TVM's own passes on the same text (without its parse):
                  LowerInitBlock, PlanAndUpdateBufferAllocationLocation,
                  ConvertBlocksToOpaque, CompactBufferAllocation,
                  LowerMatchBuffer, LowerOpaqueBlock, FlattenBuffer
                  (what tirc's default pipeline corresponds to; its
                  Simplify, RemoveNoOp and LowerIntrin left out), measured
                  where TVM's parse of the text finishes in time (--tvm-max)
and tirc's peak RSS per input line and its reading speed.

With --pipeline compact,lower_match: tirc --passes=compact,lower_match
printing TIR, against TVM's LowerInitBlock, ConvertBlocksToOpaque (TVM's
compaction takes opaque blocks only), CompactBufferAllocation and
LowerMatchBuffer.

With --funcs: N small functions of one @I.ir_module (bench/gen_funcs.py)
instead of N stages of one function.  With --root: the stages' buffers
allocated by the root block (gen_stages.py --root), all N in scope of every
block, each moved into its stage's loop by PlanAndUpdateBufferAllocation
Location.

usage: python3 bench/bench_scale.py [--sizes 10,100,1000,4000,16000] [--runs 3] [--tvm-max 1000]
                                    [--pipeline default|compact,lower_match] [--funcs] [--root]
"""
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIRC = os.path.join(ROOT, "build", "bin", "tirc")


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


PIPELINE = arg("--pipeline", "default")
FUNCS = "--funcs" in sys.argv
ROOT_ALLOCS = "--root" in sys.argv


def tirc_run(path, runs):
    whole, passes, parse, rss = [], [], [], 0
    flags = ["--emit=c"] if PIPELINE == "default" else ["--passes=" + PIPELINE]
    for _ in range(runs):
        t0 = time.perf_counter()
        r = subprocess.run(["/usr/bin/time", "-f", "%M", TIRC] + flags + ["--time-passes", path, "-o", os.devnull],
                           capture_output=True, text=True, check=True)
        whole.append((time.perf_counter() - t0) * 1e3)
        rows = {m.group(2).strip(): float(m.group(1)) for m in re.finditer(r"^\s*([\d.]+)\s+[\d.]+%\s+(.*)$", r.stderr, re.M)}
        parse.append(rows.get("parse", 0.0))
        passes.append(sum(v for k, v in rows.items() if "(" in k or k == "reclaim"))  # passes, and dropping the IR they replaced
        rss = max(rss, int(r.stderr.strip().splitlines()[-1]))
    return statistics.median(whole), statistics.median(passes), statistics.median(parse), rss


def tvm_passes(path, runs):
    import tvm
    t = tvm.s_tir.transform
    if PIPELINE == "default":
        seq = tvm.transform.Sequential([t.LowerInitBlock(), t.PlanAndUpdateBufferAllocationLocation(),
                                        t.ConvertBlocksToOpaque(), t.CompactBufferAllocation(), t.LowerMatchBuffer(),
                                        t.LowerOpaqueBlock(), tvm.tirx.transform.FlattenBuffer()])
    elif PIPELINE == "compact,lower_match":
        # TVM's compaction takes opaque blocks only: the two passes before it
        # that tirc's compact does without (as bench_vs_tvm.py)
        seq = tvm.transform.Sequential([t.LowerInitBlock(), t.ConvertBlocksToOpaque(),
                                        t.CompactBufferAllocation(), t.LowerMatchBuffer()])
    else:
        sys.exit("bench_scale: --pipeline is default or compact,lower_match")
    f = tvm.script.from_source(open(path).read())
    times = []
    for _ in range(runs):
        mod = f if isinstance(f, tvm.IRModule) else tvm.IRModule({"stages": f})
        t0 = time.perf_counter()
        seq(mod)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main():
    sizes = [int(x) for x in arg("--sizes", "10,100,1000,4000,16000").split(",")]
    runs = int(arg("--runs", "3"))
    tvm_max = int(arg("--tvm-max", "1000"))
    print(f"pipeline: {PIPELINE}")
    print(f"| {'functions' if FUNCS else 'stages'} | lines | MB | tirc whole ms | tirc passes ms | TVM passes ms | TVM passes / tirc whole | "
          "tirc read MB/s | tirc peak RSS B/line |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    prev = None
    with tempfile.TemporaryDirectory() as d:
        for n in sizes:
            path = os.path.join(d, f"s{n}.tir")
            with open(path, "w") as fh:
                gen = "gen_funcs.py" if FUNCS else "gen_stages.py"
                subprocess.run([sys.executable, os.path.join(ROOT, "bench", gen), str(n)] + (["--root"] if ROOT_ALLOCS else []),
                               stdout=fh, check=True)
            size = os.path.getsize(path)
            lines = sum(1 for _ in open(path))
            whole, passes, parse, rss = tirc_run(path, runs)
            tvm = tvm_passes(path, runs) if n <= tvm_max else None
            ratio = f"{tvm / whole:.1f}x" if tvm else "-"
            print(f"| {n} | {lines} | {size / 1e6:.2f} | {whole:.1f} | {passes:.1f} | "
                  f"{f'{tvm:.1f}' if tvm else 'not run'} | {ratio} | {size / 1e6 / (parse / 1e3):.1f} | "
                  f"{rss * 1024 / lines:.0f} |", flush=True)
            if prev and n == 4 * prev[0]:
                print(f"|   | time({n})/time({prev[0]}): whole {whole / prev[1]:.2f}, passes {passes / prev[2]:.2f} |||||||||")
            prev = (n, whole, passes)


main()
