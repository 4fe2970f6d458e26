"""bigdeep.py - a generator of big and deep programs, with a running oracle
(issue 11).

Each program is random but valid: integer arithmetic (int32 / int64) with
constants near every power of two (2^k - 1, 2^k, 2^k + 1, negated), deep loop
nests, long statement sequences, long operator chains (up to the reader's
documented limit of 200), chained lets, Selects, floordiv / floormod by
constants, and names drawn from C and CUDA reserved words, macros and the
generator's own names.  For each:

  - tirc --emit=c must exit 0 (a refusal is a finding: the program is valid)
    with no crash and within the time limit;
  - the C must compile with gcc -std=c11 -Wall -Wextra -Werror;
  - where no intermediate value of the program leaves its dtype (computed
    here with exact integers), the C is linked with a generated main and
    run, and each output element must equal the value computed here;
  - with --cuda (and nvcc on PATH), every 8th program's CUDA must compile
    with nvcc -Werror all-warnings.

usage: python3 tests/fuzz/bigdeep.py build/bin/tirc [N] [--seed S] [--time SECONDS] [--cuda]
Prints `bigdeep: N passed, N failed (...)`; exit 1 on a failure.  A program
whose own arithmetic overflows (TVM: two's complement) has signed overflow
in its C, as TVM's C has; where gcc proves it at compile time
(-Woverflow, -Waggressive-loop-optimizations) it is counted apart, not as a
finding (BIGDEEP_SAVE=DIR keeps each failing program).
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

NVCC_TIMEOUT = 300  # seconds for one nvcc run

# C and CUDA names that are valid Python identifiers (no class, assert ...)
NAMES = """int float double char auto register restrict volatile signed unsigned goto case default switch
struct union typedef sizeof static extern const inline this new delete template namespace
typename virtual operator private public friend NULL EOF errno stdin stdout linux unix threadIdx
blockIdx blockDim gridDim warpSize __syncthreads memcpy memset malloc free main printf exp log sqrt
half int4 float4 dim3 size_t int32_t int64_t INT32_MAX INT64_MIN INFINITY NAN tir_min_i32 tir_floordiv
cudaStream_t cudaSuccess err stream packed args workspace _A __x f_packed f_kernel0 offsetof
bool true false nullptr wchar_t alignas alignof noexcept constexpr decltype mutable explicit export
M_PI HUGE_VAL CHAR_BIT SIZE_MAX UINT8_MAX __global__ __device__ __shared__ signbit isnan""".split()


def consts(bits):
    out = [0, 1, -1, 2, 3, 7]
    for k in range(1, bits - 1):
        for c in (1 << k) - 1, 1 << k, (1 << k) + 1:
            out += [c, -c]
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    out += [hi, hi - 1, lo + 1]
    return [c for c in out if lo <= c <= hi]


class Overflow(Exception):
    pass


class Gen:
    def __init__(self, rng, dtype):
        self.rng = rng
        self.dtype = dtype
        self.bits = 64 if dtype == "int64" else 32
        self.lo, self.hi = -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        self.consts = consts(self.bits)
        self.used = set()
        self.refs = {}  # how a var is referenced in text -> its name
        self.nstmt = 0

    def name(self):
        for _ in range(100):
            n = self.rng.choice(NAMES)
            if self.rng.random() < 0.3:
                n += "_" + str(self.rng.randrange(3))
            if n not in self.used:
                self.used.add(n)
                return n
        n = "v%d" % len(self.used)
        self.used.add(n)
        return n

    def lit(self, c):
        return "T.%s(%d)" % (self.dtype, c)  # typed: a Python int would fold in Python first

    # an expression: (text, evaluator(env) -> int); depth bounds nesting
    def expr(self, env_vars, depth):
        r = self.rng.random()
        if depth <= 0 or r < 0.25:
            if env_vars and self.rng.random() < 0.6:
                v = self.rng.choice(env_vars)
                return v, (lambda e, v=self.refs.get(v, v): e[v])
            c = self.rng.choice(self.consts)
            return self.lit(c), (lambda e, c=c: c)
        if r < 0.35:  # a long left-nested chain
            n = self.rng.randint(2, 40 if depth > 2 else 8)
            op = self.rng.choice(["+", "-", "+", "*"])
            terms = [self.expr(env_vars, 0) for _ in range(n)]
            text = " {} ".format(op).join("(%s)" % t for t, _ in terms)
            fs = [f for _, f in terms]

            def ev(e, fs=fs, op=op):
                acc = self.chk(fs[0](e))
                for f in fs[1:]:
                    x = f(e)
                    acc = self.chk(acc + x if op == "+" else acc - x if op == "-" else acc * x)
                return acc
            return "(" + text + ")", ev
        a = self.expr(env_vars, depth - 1)
        b = self.expr(env_vars, depth - 1)
        k = self.rng.randrange(8)
        if k < 3:
            op = "+-*"[k]
            return "(%s %s %s)" % (a[0], op, b[0]), (
                lambda e, fa=a[1], fb=b[1], op=op: self.chk(
                    fa(e) + fb(e) if op == "+" else fa(e) - fb(e) if op == "-" else fa(e) * fb(e)))
        if k < 5:  # floordiv / floormod by a nonzero constant
            c = self.rng.choice([c for c in self.consts if c != 0])
            fn = "floordiv" if k == 3 else "floormod"
            return "T.%s(%s, %s)" % (fn, a[0], self.lit(c)), (
                lambda e, fa=a[1], c=c, fn=fn: self.chk(fa(e) // c if fn == "floordiv" else fa(e) % c))
        if k < 7:
            fn = "min" if k == 5 else "max"
            return "T.%s(%s, %s)" % (fn, a[0], b[0]), (
                lambda e, fa=a[1], fb=b[1], fn=fn: (min if fn == "min" else max)(fa(e), fb(e)))
        c = self.expr(env_vars, depth - 1)
        cmp = self.rng.choice(["<", "<=", "==", "!=", ">", ">="])
        return "T.Select(%s %s %s, %s, %s)" % (a[0], cmp, b[0], c[0], b[0]), (
            lambda e, fa=a[1], fb=b[1], fc=c[1], cmp=cmp: fc(e) if eval("x %s y" % cmp, {"x": fa(e), "y": fb(e)}) else fb(e))

    def chk(self, v):
        if v < self.lo or v > self.hi:
            raise Overflow()
        return v

    # statements: list of lines (at indent) and an executor(env, out)
    def stmts(self, ind, env_vars, depth, budget):
        lines, execs = [], []
        count = self.rng.randint(1, 3 if depth > 0 else 1)
        if depth == 0 and self.rng.random() < 0.3:
            count = self.rng.randint(20, budget)  # a long sequence
        for _ in range(count):
            r = self.rng.random()
            if depth > 0 and r < 0.45:
                v = self.name()
                ext = self.rng.choice([1, 2, 2, 3])
                lines.append("    " * ind + "for %s in range(%d):" % (v, ext))
                ref = v if self.bits == 32 else 'T.Cast("int64", %s)' % v  # loop vars are int32
                self.refs[ref] = v
                sub_l, sub_x = self.stmts(ind + 1, env_vars + [ref], depth - 1, budget)
                lines += sub_l

                def run(e, out, v=v, ext=ext, sub_x=sub_x):
                    for i in range(ext):
                        e2 = dict(e)
                        e2[v] = i
                        for x in sub_x:
                            x(e2, out)
                execs.append(run)
            elif depth > 0 and r < 0.6:
                v = self.name()
                val = self.expr(env_vars, 2)
                lines.append("    " * ind + "%s: T.let[T.%s] = %s" % (v, self.dtype, val[0]))
                sub_l, sub_x = self.stmts(ind, env_vars + [v], depth - 1, budget)
                lines += sub_l

                def run(e, out, v=v, f=val[1], sub_x=sub_x):
                    e2 = dict(e)
                    e2[v] = f(e)
                    for x in sub_x:
                        x(e2, out)
                execs.append(run)
                break  # the let scopes the rest
            else:
                val = self.expr(env_vars, self.rng.randint(1, 5))
                k = self.nstmt % 64
                self.nstmt += 1
                lines.append("    " * ind + "Out[%d] = Out[%d] + %s" % (k, k, val[0]))

                def run(e, out, k=k, f=val[1]):
                    out[k] = self.chk(out[k] + f(e))
                execs.append(run)
        return lines, execs

    def program(self):
        fname = self.rng.choice(["f", "f", self.name()])
        xname = self.name()
        lines = ["@T.prim_func", "def %s(Out: T.Buffer((64,), \"%s\"), %s: T.%s):" % (fname, self.dtype, xname, self.dtype)]
        body, execs = self.stmts(1, [xname], self.rng.randint(2, 14), 400)
        lines += body
        return "\n".join(lines) + "\n", xname, execs


def c_main(sym, ctype, x, expect):
    vals = ", ".join("INT64_C(%d)" % v for v in expect)
    return """#include <stdint.h>
#include <stdio.h>
int32_t %s(%s *Out, %s x);
static const int64_t want[64] = {%s};
int main(void) {
  _Alignas(64) %s out[64] = {0}; /* the calling convention: 64-byte aligned */
  if (%s(out, (%s)INT64_C(%d))) return 2;
  for (int i = 0; i < 64; i++)
    if ((int64_t)out[i] != want[i]) {
      printf("Out[%%d] = %%lld, want %%lld\\n", i, (long long)out[i], (long long)want[i]);
      return 1;
    }
  return 0;
}
""" % (sym, ctype, ctype, vals, ctype, sym, ctype, x)


def main():
    args = sys.argv[1:]
    tirc = os.path.abspath(args[0])
    n = int(args[1]) if len(args) > 1 and args[1].isdigit() else 30
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 20261124
    limit = float(args[args.index("--time") + 1]) if "--time" in args else None
    cuda = "--cuda" in args and shutil.which("nvcc")
    rng = random.Random(seed)
    passed = failed = ran = compiled_only = overflow_ub = nvcc_slow = 0
    start = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        i = 0
        while (limit is None and i < n) or (limit is not None and time.time() - start < limit):
            i += 1
            dtype = rng.choice(["int32", "int64", "int64"])
            g = Gen(rng, dtype)
            src, xname, execs = g.program()
            x = rng.choice([0, 1, 2, -1, 3, 100, -7])
            out = [0] * 64
            try:
                for ex in execs:
                    ex({xname: x}, out)
                expect = out
            except Overflow:
                expect = None
            except RecursionError:
                expect = None
            path = os.path.join(tmp, "p%d.tir" % i)
            with open(path, "w") as fh:
                fh.write(src)
            keep = os.path.join(tmp, "fail%d.tir" % i)

            def fail(why, detail=""):
                nonlocal failed
                failed += 1
                shutil.copy(path, keep)
                sys.stdout.write("FAIL bigdeep #%d (seed %d): %s\n%s\n" % (i, seed, why, detail[-1500:]))
                save = os.environ.get("BIGDEEP_SAVE")
                if save:
                    os.makedirs(save, exist_ok=True)
                    shutil.copy(path, os.path.join(save, "fail_%d_%d.tir" % (seed, i)))

            cpath = os.path.join(tmp, "p%d.c" % i)
            try:
                p = subprocess.run([tirc, "--emit=c", path, "-o", cpath], capture_output=True, timeout=30)
            except subprocess.TimeoutExpired:
                fail("tirc hangs (30 s)")
                continue
            if p.returncode != 0:
                fail("tirc exit %d on a valid program" % p.returncode, p.stderr.decode(errors="replace"))
                continue
            # a program whose arithmetic overflows (TVM: two's complement) has
            # signed overflow in its C, as TVM's C has: gcc -O1 may prove it
            # (-Waggressive-loop-optimizations), so those compile at -O0
            opt = "-O1" if expect is not None else "-O0"
            c = subprocess.run(["gcc", "-std=c11", opt, "-Wall", "-Wextra", "-Werror", "-c", cpath, "-o", cpath + ".o"],
                               capture_output=True)
            if c.returncode != 0:
                errs = re.findall(r"error: .*", c.stderr.decode(errors="replace"))
                if expect is None and errs and all(re.search(r"\[-Werror=(overflow|aggressive-loop-optimizations)\]", e)
                                                   for e in errs):
                    # the program's own int arithmetic overflows (TVM wraps);
                    # its C has signed overflow, as TVM's C does, which gcc
                    # proved at compile time: counted, not a finding
                    overflow_ub += 1
                    continue
                fail("C does not compile", c.stderr.decode(errors="replace"))
                continue
            if expect is not None:
                m = re.search(r"^int32_t (\w+)\(", open(cpath).read(), re.M)
                ctype = "int64_t" if dtype == "int64" else "int32_t"
                mpath = os.path.join(tmp, "m%d.c" % i)
                with open(mpath, "w") as fh:
                    fh.write(c_main(m.group(1), ctype, x, expect))
                exe = os.path.join(tmp, "p%d.bin" % i)
                c = subprocess.run(["gcc", "-std=c11", "-O1", cpath, mpath, "-o", exe, "-lm"], capture_output=True)
                if c.returncode != 0:
                    fail("C does not link with its main", c.stderr.decode(errors="replace"))
                    continue
                try:
                    r = subprocess.run([exe], capture_output=True, timeout=20)
                except subprocess.TimeoutExpired:
                    fail("the C hangs")
                    continue
                if r.returncode != 0:
                    fail("wrong answer (x = %d)" % x, r.stdout.decode(errors="replace"))
                    continue
                ran += 1
            else:
                compiled_only += 1
            if cuda and i % 8 == 0:
                cu = os.path.join(tmp, "p%d.cu" % i)
                p = subprocess.run([tirc, "--emit=cuda", path, "-o", cu], capture_output=True, timeout=30)
                if p.returncode != 0:
                    fail("tirc --emit=cuda exit %d" % p.returncode, p.stderr.decode(errors="replace"))
                    continue
                nvcc = ["nvcc", "-arch=sm_80", "-Werror", "all-warnings", "-c", cu, "-o", cu + ".o"]
                try:
                    c = subprocess.run(nvcc, capture_output=True, timeout=NVCC_TIMEOUT)
                    if c.returncode != 0 and re.search(r"Segmentation fault|--error 0x8b", c.stderr.decode(errors="replace")):
                        # cicc (NVVM, CUDA 13.0) crashes at -O3 on some long
                        # kernels (seed 20261206 #2136: 397 KB of CUDA that
                        # compiles at -Xcicc -O1 and -O0): checked at -O0
                        raise subprocess.TimeoutExpired(nvcc, NVCC_TIMEOUT)
                except subprocess.TimeoutExpired:
                    # NVVM's optimizer can take over half an hour on a
                    # kernel of long nested integer expressions (seed
                    # 20261205 #4792: 100 KB of CUDA that compiles in 1 s
                    # with -Xcicc -O0, and that gcc compiles as C in 1 s).
                    # The CUDA is still checked, at -O0, and counted.
                    try:
                        c = subprocess.run(nvcc[:1] + ["-Xcicc", "-O0"] + nvcc[1:], capture_output=True,
                                           timeout=NVCC_TIMEOUT)
                    except subprocess.TimeoutExpired:
                        fail("nvcc -Xcicc -O0 takes over %d s" % NVCC_TIMEOUT)
                        continue
                    nvcc_slow += 1
                    save = os.environ.get("BIGDEEP_SAVE")
                    if save:
                        os.makedirs(save, exist_ok=True)
                        shutil.copy(path, os.path.join(save, "nvcc_slow_%d_%d.tir" % (seed, i)))
                if c.returncode != 0:
                    fail("CUDA does not compile", c.stderr.decode(errors="replace"))
                    continue
            passed += 1
            for fpath in (path, cpath, cpath + ".o"):
                if os.path.exists(fpath):
                    os.remove(fpath)
    print("bigdeep: %d passed, %d failed (%d run, %d compile-only; %d overflowing programs whose C signed "
          "overflow gcc diagnosed; %d CUDA files past nvcc's %d s at -O3 or crashing it, checked at -O0) in %.0f s"
          % (passed, failed, ran, compiled_only, overflow_ub, nvcc_slow, NVCC_TIMEOUT, time.time() - start))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
