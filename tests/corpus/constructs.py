"""constructs.py - one-construct and whole-program TVMScript texts that
TVM 0.27 reads (tests/corpus/constructs/*.tir: TVM's test idioms, written
for two sweeps of 2026-11-26, and texts TVM printed after its own passes),
each read by tirc and printed back, TVM's reading of that print compared
with TVM's reading of the text (structural equality, map_free_vars), and
each put through tirc's default pipeline (which may refuse, never crash).

Every file's outcome is listed in constructs/expected.txt:
  equal    round-trips structurally equal
  refused  tirc refuses it with a file:line:col error (the construct named)
  known    differs from TVM as tests/corpus/constructs/expected.txt says why
A file whose outcome differs from its line fails the run, as does a crash
or a timeout anywhere.

Every eighth text of constructs/ is read (all with CONSTRUCTS_FULL=1); those of sweep5/ (a sixth to eighth
sweep of 2026-11-26: TIR as TVM's relax tests, its te/codegen/contrib
tests and its GPU schedule/transform tests write it, and TVM's prints
after its passes; 1,672 texts) every thirty-second, all with CONSTRUCTS_FULL=1
(`make corpus-full`). sweep6/ (1,141 texts of 2026-11-27: TVM's schedule
primitives' and default pipeline's prints of te workloads, dlight's GPU
schedules, hand-written TVM-test idioms of expressions, folding, statements,
launches, inference and modules, and generated programs) likewise.
sweep7/ (1,648 texts of 2026-11-27: TVM's TVMScript round-trip, printer
and parser test idioms and its tir-base tests, recalled and varied:
signatures, allocations, annotations of every value type, attrs, views,
intrinsics, vectors, control flow, block-region inference, modules) every
thirty-second, all with CONSTRUCTS_FULL=1. sweep8/ (2,932 texts of 2026-11-27:
TVM 0.27's prints after its passes outside the default pipeline, 81 pass
setups of tvm.tirx.transform and tvm.s_tir.transform alone or in short
chains over the corpora above and topi/dlight programs, and 152
hand-written programs in the style of those passes' tests) every
sixty-fourth, all with CONSTRUCTS_FULL=1. sweep9/ (1,294 texts of
2026-11-27: TVM's tir-analysis and tir-base test idioms, blocks without
T.reads/T.writes and their inferred regions above all) likewise. sweep10/
(3,447 texts of 2026-11-27: IR built node by node with TVM's Python API, as
its printer tests build it, te programs under 33 schedule primitives, and
the s_tir/tirx passes one at a time, each printed by TVM and kept when TVM
reads its own print back equal) likewise. sweep11/ (998 texts of
2026-11-27: TVM's schedule-primitive and meta-schedule tests (s11a_*) and
its lowering passes' before/after tests (s11b_*), recalled and varied)
likewise. sweep12/ (1,042 texts of 2026-11-27: TVM's TVMScript, tir-base and
tir-analysis tests and its tensor intrinsics' source, written as people
write them (s12a_*), and meta-schedule design spaces, hand-written
s_tir.Schedule programs and their lowering, each printed by TVM itself
(s12b_*)) likewise. sweep13/ (1,786 texts of 2026-11-27: every script
function of TVM 0.27's T namespace in each spelling its Python wrapper
takes, keywords by name, span=None, dtype spellings (s13a_*), and the TIR
people write in TVM's codegen, runtime, meta-schedule, dlight and transform
tests and its package sources (s13b_*)) likewise. sweep14/ (533 texts of
2026-11-27: TVM's documentation and tutorials as they write TIR, te programs
with less common features printed by TVM, and the sugar and layout people
use: parentheses, comments, semicolons, continuations, odd names) every
thirty-second, all with CONSTRUCTS_FULL=1. sweep15/ (669 texts of
2026-11-27: the Before/Expected modules of TVM's relax tests that hold
T.prim_funcs, as the tests write them: legalized kernels, fused and split
kernels, module attrs; the modules with Relax functions are refused by
name) every sixty-fourth, all with CONSTRUCTS_FULL=1.  sweep16/ (796 texts
of 2026-11-27's seventh session: modules of Relax functions beside TIR, as
TVM prints them after 25 relax pass setups and nn.Module exports, and as
its relax tests write them in 14 layouts: indentations, comments,
continuations, CRLF, form feeds, multi-line strings) every sixty-fourth,
all with CONSTRUCTS_FULL=1.  sweep17/ (1,372 texts of 2026-11-28: TVM's
pass tests recalled as templates (virtual threads, warp memory, hoisting,
double buffers, allreduce, async copies, pipelines, legalizers, packed
API, host/device split), parser and printer edge cases, TVM's prints after
18 schedule recipes and after every third pass of its CPU pipeline, dlight
GPU schedules through its GPU pipeline, and 122 tensor intrinsics) every
sixty-fourth, all with CONSTRUCTS_FULL=1.  sweep18/ (1,084 texts of
2026-11-29, tests/corpus/ms_sweep.py: 12 tvm.topi workloads scheduled as
MetaSchedule's design spaces schedule them, by seeded choices of its
rules through tvm.s_tir.Schedule (multi-level tiling with TVM's own
sample_perfect_tile, cache reads and writes, cooperative fetch, thread
bindings, parallel/vectorize/unroll annotations, decompose_reduction),
for CPU and GPU, six seeds each, and TVM's print after each pass of its
lowering) likewise.

usage: python3 tests/corpus/constructs.py TIRC [--update]
  CONSTRUCTS_DIR=D runs the texts of D instead (D/expected.txt), for a new sweep
"""
import concurrent.futures
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FULL = os.environ.get("CONSTRUCTS_FULL") == "1" or "--update" in sys.argv
# (directory, take every n-th text)
DIRS = ([(os.environ["CONSTRUCTS_DIR"], 1)] if os.environ.get("CONSTRUCTS_DIR") else
        [(os.path.join(HERE, "constructs"), 1 if FULL else 8), (os.path.join(HERE, "sweep5"), 1 if FULL else 32),
         (os.path.join(HERE, "sweep6"), 1 if FULL else 32), (os.path.join(HERE, "sweep7"), 1 if FULL else 32),
         (os.path.join(HERE, "sweep8"), 1 if FULL else 64),
         (os.path.join(HERE, "sweep9"), 1 if FULL else 64),
         (os.path.join(HERE, "sweep10"), 1 if FULL else 64),
         (os.path.join(HERE, "sweep11"), 1 if FULL else 64),
         (os.path.join(HERE, "sweep12"), 1 if FULL else 64),
         (os.path.join(HERE, "sweep13"), 1 if FULL else 64),
         (os.path.join(HERE, "sweep14"), 1 if FULL else 32),
         (os.path.join(HERE, "sweep15"), 1 if FULL else 64),
         (os.path.join(HERE, "sweep16"), 1 if FULL else 64),
         (os.path.join(HERE, "sweep17"), 1 if FULL else 64),
         (os.path.join(HERE, "sweep18"), 1 if FULL else 64)])

# import tirx before anything loads tvm.script.parser: tirc reads as the
# @T.prim_func decorator does (docs/syntax.md, comparisons)
from tvm.script import tirx as _T, ir as _I  # noqa: E402
import tvm  # noqa: E402
import tvm_ffi  # noqa: E402
import lazy_stack  # noqa: E402,F401  (after tirx, before TVM reads a text)

import typing  # noqa: E402
# TVM 0.27 prints `n = TypeVar("n")` for int64 shape vars
EV = {"T": _T, "I": _I, "TypeVar": typing.TypeVar}
# R for the texts that import it (sweep15's modules with Relax functions,
# which tirc refuses by name), imported at the first of them: importing
# tvm.script.relax changes how TVM reads some TIR (`T.GE(...) and ...` is
# then left unfolded), so it comes after every TIR-only directory (sweep15
# is the last)
EV_R = {}
import tvm_text  # noqa: E402  (after tirx: see above)
from tvm_text import as_pair  # noqa: E402


def tvm_read(text):
    if "from tvm.script import relax as R" not in text:
        return tvm_text.tvm_read(text, EV)
    if not EV_R:
        from tvm.script import relax as _R
        EV_R.update(EV, R=_R)
    return tvm_text.tvm_read(text, EV_R)


def crashed(rc, err):
    return rc is None or rc >= 128 or rc < 0 or bool(
        re.search(r"Sanitizer|runtime error:|Assertion .* failed|Segmentation", err))


def run(tirc, args, path):
    try:
        p = subprocess.run([tirc] + args + [path], capture_output=True, text=True, timeout=60)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return None, "", "timeout"


def tirc_side(tirc, path):
    """(print rc, stdout, stderr, pipeline rc, its stderr): the processes run in threads"""
    rc, out, err = run(tirc, [], path)
    prc, _, perr = run(tirc, ["--passes=default", "-o", os.devnull], path)
    return rc, out, err, prc, perr


def main():
    tirc = os.path.abspath(sys.argv[1])
    failed = False
    for d, every in DIRS:
        failed |= run_dir(tirc, d, every)
    sys.exit(1 if failed else 0)


def ordinal(n):
    return "other text" if n == 2 else "%d%s" % (n, "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th"))


def run_dir(tirc, DIR, every):
    EXPECTED = os.path.join(DIR, "expected.txt")
    update = "--update" in sys.argv
    files = sorted(f for f in os.listdir(DIR) if f.endswith(".tir"))[::every]
    expected = {}
    if os.path.exists(EXPECTED):
        for line in open(EXPECTED):
            if line.strip() and not line.startswith("#"):
                name, rest = line.split(":", 1)
                expected[name.strip()] = rest.strip()
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        sides = dict(zip(files, ex.map(lambda f: tirc_side(tirc, os.path.join(DIR, f)), files)))
    got, fails = {}, []
    for f in files:
        path = os.path.join(DIR, f)
        rc, out, err, prc, perr = sides[f]
        if crashed(rc, err) or crashed(prc, perr):
            fails.append("%s: tirc crashed or timed out: %s" % (f, (err or perr)[-300:]))
            continue
        if rc != 0:
            first = err.strip().splitlines()[0] if err.strip() else ""
            got[f] = "refused" if re.search(r":\d+:\d+: error: ", first) else "bad-error"
        else:
            a, b = tvm_read(open(path).read()), tvm_read(out)
            if a is None:
                got[f] = "tvm-unreadable"
            elif b is None:
                got[f] = "output-unreadable"
            else:
                a, b = as_pair(a, b)
                got[f] = "equal" if tvm_ffi.structural_equal(a, b, map_free_vars=True) else "differs"
        want = expected.get(f, "")
        kind = want.split()[0].rstrip(":") if want else ""
        ok = got[f] == kind or (got[f] == "differs" and kind == "known")
        if not ok and not update:
            fails.append("%s: %s, expected %s" % (f, got[f], want or "(no line)"))
    if update:
        with open(EXPECTED, "w") as fh:
            fh.write("# tests/corpus/constructs.py: each file's outcome (equal, refused, or known: why it differs)\n")
            for f in files:
                old = expected.get(f, "")
                line = old if (got.get(f) == "differs" and old.startswith("known")) else got.get(f, "crash")
                fh.write("%s: %s\n" % (f, line))
    counts = {}
    for v in got.values():
        counts[v] = counts.get(v, 0) + 1
    base = os.path.basename(os.path.normpath(DIR))
    for msg in fails:
        print("FAIL %s/%s" % (base, msg))
    print("%s: %d programs%s: %s; %d failed" % (base, len(files), " (every %s)" % ordinal(every) if every > 1 else "",
                                             ", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())), len(fails)))
    return bool(fails)


main()
