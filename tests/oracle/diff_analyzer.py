"""diff_analyzer.py - differential test of tirc's simplifier against TVM's.

Generates random quasi-affine int exprs (sums, products by constants,
floordiv/floormod by constants, min/max) over vars with random ranges, runs
each through build/tests/tools/arith_driver (tirc) and tvm.sym.Analyzer
(TVM 0.27's arith analyzer), and checks that tirc's result is proved equal
to the input by isl and is no larger (in nodes) than TVM's.

    python3 tests/oracle/diff_analyzer.py [N] [SEED]

ARITH_DRIVER=path overrides the driver (e.g. the build-asan one).
Closing lines: `ours smaller/equal/larger: a/b/c; spelled as TVM's: d`
(d: the results whose text is TVM's, character for character), then
`diff_analyzer: N passed, N failed`; exit status 1 on any failure.  2000
cases take about 2 s.
"""
import random
import subprocess
import sys
import os

import tvm
from tvm import tirx as tir
from tvm import sym

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRIVER = os.environ.get('ARITH_DRIVER') or os.path.join(ROOT, "build", "tests", "tools", "arith_driver")
NAMES = ["x", "y", "z", "w"]


def gen(rng, tv, depth):
    """(sexpr text, tvm expr)"""
    if depth == 0 or rng.random() < 0.25:
        if rng.random() < 0.75:
            n = rng.choice(NAMES)
            return n, tv[n]
        c = rng.randint(-20, 40)
        return str(c), tir.IntImm("int32", c)
    op = rng.choice(["+", "+", "-", "*", "*", "//", "%", "min", "max", "+"])
    a, ta = gen(rng, tv, depth - 1)
    if op in ("*", "//", "%"):
        c = rng.choice([1, 2, 3, 4, 8, 16, 6, 32]) if op != "*" else rng.choice([-3, -1, 2, 3, 4, 8, 16])
        tc = tir.IntImm("int32", c)
        te = {"*": lambda: ta * tc, "//": lambda: tir.floordiv(ta, tc), "%": lambda: tir.floormod(ta, tc)}[op]()
        return "(%s %s %d)" % (op, a, c), te
    b, tb = gen(rng, tv, depth - 1)
    te = {"+": lambda: ta + tb, "-": lambda: ta - tb, "min": lambda: tir.min(ta, tb),
          "max": lambda: tir.max(ta, tb)}[op]()
    return "(%s %s %s)" % (op, a, b), te


def count(e):
    """nodes of a TVM expr, counted as tirc counts them"""
    if isinstance(e, (tir.IntImm, tir.Var)):
        return 1
    if hasattr(e, "a") and hasattr(e, "b"):
        return 1 + count(e.a) + count(e.b)
    if isinstance(e, tir.Select):
        return 1 + count(e.condition) + count(e.true_value) + count(e.false_value)
    if hasattr(e, "value"):
        return 1 + count(e.value)
    if hasattr(e, "a"):
        return 1 + count(e.a)
    raise TypeError(type(e))


def main():
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    rng = random.Random(seed)
    cases = []
    for _ in range(total):
        tv = {n: tir.Var(n, "int32") for n in NAMES}
        ranges = {n: (rng.randint(-8, 8), rng.randint(1, 40)) for n in NAMES}
        text, te = gen(rng, tv, rng.randint(1, 4))
        ana = sym.Analyzer()
        for n in NAMES:
            lo, ext = ranges[n]
            ana.bind(tv[n], tvm.ir.Range(lo, lo + ext))
        ts = ana.simplify(te)
        line = " ".join("%s %d %d" % (n, lo, ext) for n, (lo, ext) in ranges.items()) + " ; " + text
        cases.append((line, te, ts, count(te), count(ts)))
    if not os.access(DRIVER, os.X_OK):
        print("diff_analyzer: %s is not built (make all)" % DRIVER)
        print("diff_analyzer: 0 passed, %d failed" % total)
        return 1
    out = subprocess.run([DRIVER], input="\n".join(c[0] for c in cases) + "\n",
                         capture_output=True, text=True, check=True).stdout.splitlines()
    passed = failed = smaller = same = larger = spelled = 0
    for (line, te, ts, nin, ntvm), res in zip(cases, out):
        parts = res.split("\t")
        if len(parts) != 4:
            failed += 1
            print("FAIL (driver): %s -> %s" % (line, res))
            continue
        ours, _, nours, verdict = parts[0], int(parts[1]), int(parts[2]), parts[3]
        spelled += ours == str(ts)
        if nours < ntvm:
            smaller += 1
        elif nours == ntvm:
            same += 1
        else:
            larger += 1
        if verdict != "equal" or nours > ntvm:
            failed += 1
            print("FAIL: %s\n  ours (%d nodes, %s): %s\n  tvm  (%d nodes): %s" % (line, nours, verdict, ours, ntvm, ts))
        else:
            passed += 1
    if len(out) != len(cases):
        failed += len(cases) - len(out)
    print("ours smaller/equal/larger: %d/%d/%d; spelled as TVM's: %d" % (smaller, same, larger, spelled))
    print("diff_analyzer: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
