#!/usr/bin/env python3
"""diff_tvm.py - a differential mutation fuzz of tirc's reader against TVM
0.27's parser (make fuzz-tvm).

Each mutant is a text of the TVM-readable corpora (tests/corpus/*/, the
files listed `equal`) with one to three mutations: a number, a dtype or
scope string, an operator, a T.* name of a family (min/max, serial/
parallel, ...) or another identifier of the text swapped; a line deleted
or repeated; a call given one more positional argument or a keyword
(which may name a parameter given by position).  Both read it:

  equal          TVM reads it, tirc reads it, and TVM's reading of tirc's
                 print is structurally equal to TVM's reading of the mutant
  both-refuse    neither reads it
  DIFFER         both read it, not equal: a silent change (or a listed
                 difference): the finding this looks for
  lenient        tirc reads what TVM refuses
  refused-*      tirc refuses (by name) what TVM reads (checked, or only
                 with its well-formedness check off)
  out-unreadable tirc's print of what both read is not TVM-readable
  crash          tirc exits with neither 0 nor 1, or 1 with no
                 FILE:LINE:COL: error:, or runs past 30 s
  tvm-crash      TVM's reader died (a segfault of TVM's own; skipped)

Every mutant not equal or both-refuse is kept in OUT with tirc's stderr.
Exit status 1 when any is a crash, 0 otherwise (the rest are for review).

usage: diff_tvm.py TIRC OUT [--n N] [--seed S] [--arg-mutations P]
"""
import argparse
import io
import os
import random
import re
import subprocess
import sys
import time
import tokenize

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "corpus"))

GROUPS = [["min", "max"], ["serial", "parallel", "unroll", "vectorized"],
          ["floordiv", "floormod", "truncdiv", "truncmod"],
          ["exp", "log", "sqrt", "tanh", "sigmoid", "fabs", "floor", "ceil", "round"],
          ["float32", "int32", "int64", "float16", "bool", "int8", "uint8", "float64", "bfloat16"],
          ["spatial", "reduce", "S", "R", "scan", "opaque"], ["if_then_else", "Select"],
          ["alloc_buffer", "decl_buffer"], ["reads", "writes"], ["Broadcast", "Ramp"],
          ["shift_left", "shift_right", "bitwise_and", "bitwise_or", "bitwise_xor"], ["likely", "bool"],
          ["grid", "serial"], ["vload", "vstore"], ["launch_thread", "env_thread"]]
DTYPES = ["float32", "int32", "int64", "float16", "bool", "int8", "uint8", "float64", "bfloat16", "handle",
          "float32x4", "int32x4", "uint1", "int4", "float8_e4m3fn", ""]
SCOPES = ["global", "shared", "local", "shared.dyn", "warp", "local.fragment", "wmma.accumulator"]
# (not 2147483648: a bare Python int past int32's range as a buffer extent
# gives, in TVM, a default layout of int32 strides that T.int64(2147483648)
# does not; tirc prints the latter, a known difference, README)
NUMS = ["0", "1", "2", "-1", "3", "7", "16", "128", "2147483647", "-2147483648", "0.5", "1e30",
        "True", "False", "None"]
ARITH = ["+", "-", "*", "//", "%", "/", "<<", ">>", "&", "|", "^", "**"]
CMP = ["<", "<=", ">", ">=", "==", "!="]
KEYWORDS = {"T", "I", "def", "class", "for", "in", "with", "if", "else", "return", "and", "or", "not", "as",
            "range", "None", "True", "False"}


ARG_NAMES = ["dtype", "shape", "scope", "data", "extent", "value", "name", "annotations", "layout",
             "offset_factor", "align", "strides", "elem_offset", "thread", "lanes", "x", "cond"]
ARG_VALUES = ["0", "1", "None", '"int8"', '"x"', "(4,)", "{}", "T.int32(2)"]


def mutate_args(rnd, toks, lines):
    """a call's arguments as Python binds them: one more positional argument
    (before the first keyword), or a keyword that may name a parameter given
    by position (TVM's Python refuses both where they do not fit)"""
    calls = [k for k in range(1, len(toks)) if toks[k].string == "(" and toks[k - 1].type == tokenize.NAME
             and toks[k - 1].string not in KEYWORDS and toks[k - 1].string not in ("def", "class")]
    if not calls:
        return None
    k = rnd.choice(calls)
    depth, first_kw, end = 0, None, None
    for j in range(k, len(toks)):
        t = toks[j]
        if t.string in "([{":
            depth += 1
        elif t.string in ")]}":
            depth -= 1
            if depth == 0:
                end = j
                break
        elif depth == 1 and t.type == tokenize.NAME and j + 1 < len(toks) and toks[j + 1].string == "=" \
                and toks[j - 1].string in (",", "(") and first_kw is None:
            first_kw = j
    if end is None:
        return None
    empty = end == k + 1
    if rnd.random() < 0.5:  # an extra positional argument
        at = toks[first_kw].start if first_kw is not None else toks[end].start
        text = rnd.choice(ARG_VALUES) + (", " if first_kw is not None else "")
        if first_kw is None and not empty:
            text = ", " + text
    else:  # a keyword argument
        at = toks[end].start
        text = ("" if empty else ", ") + rnd.choice(ARG_NAMES) + "=" + rnd.choice(ARG_VALUES)
    r, c = at
    lines[r - 1] = lines[r - 1][:c] + text + lines[r - 1][c:]
    return "\n".join(lines)


ARG_MUTATIONS = 0.15  # the share of mutations of a call's arguments (--arg-mutations)


def mutate(rnd, src):
    toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    lines = src.split("\n")
    if rnd.random() < ARG_MUTATIONS:  # a call's arguments
        return mutate_args(rnd, toks, lines)
    if rnd.random() < 0.15:  # a line deleted or repeated
        body = [i for i, l in enumerate(lines)
                if l.strip() and not l.lstrip().startswith(("#", "@", "def ", "class "))]
        if not body:
            return None
        i = rnd.choice(body)
        if rnd.random() < 0.5:
            del lines[i]
        else:
            lines.insert(i, lines[rnd.choice(body)] if rnd.random() < 0.3 else lines[i])
        return "\n".join(lines)
    cands = [t for t in toks if t.type in (tokenize.NUMBER, tokenize.STRING, tokenize.NAME, tokenize.OP)]
    names = [u.string for u in toks if u.type == tokenize.NAME and u.string not in KEYWORDS]
    for _ in range(20):
        t = rnd.choice(cands)
        s, new = t.string, None
        (r0, c0), (_, c1) = t.start, t.end
        if t.type == tokenize.NUMBER:
            new = rnd.choice(NUMS + ([str(int(s) + rnd.choice([-1, 1]))] if re.match(r"^\d+$", s) else []))
        elif t.type == tokenize.STRING:
            v = s.strip("\"'")
            if v in DTYPES or re.match(r"^(u?int|float|bfloat)\d+", v):
                new = '"%s"' % rnd.choice(DTYPES)
            elif v in SCOPES:
                new = '"%s"' % rnd.choice(SCOPES)
        elif t.type == tokenize.NAME:
            fam = [g for g in GROUPS if s in g]
            after_dot = c0 > 0 and lines[r0 - 1][c0 - 1] == "."
            if fam and rnd.random() < 0.6:
                new = rnd.choice(fam[0])
            elif s not in KEYWORDS and names and not after_dot and rnd.random() < 0.5:
                new = rnd.choice(names)
            elif s in ("and", "or"):
                new = "or" if s == "and" else "and"
        elif s in ARITH:
            new = rnd.choice(ARITH)
        elif s in CMP:
            new = rnd.choice(CMP)
        if new is None or new == s:
            continue
        lines[r0 - 1] = lines[r0 - 1][:c0] + new + lines[r0 - 1][c1:]
        return "\n".join(lines)
    return None


def main():
    global ARG_MUTATIONS
    ap = argparse.ArgumentParser()
    ap.add_argument("tirc")
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--arg-mutations", type=float, default=0.15,
                    help="the share of mutations that change a call's arguments (default %(default)s)")
    args = ap.parse_args()
    ARG_MUTATIONS = args.arg_mutations
    from tvm_judge import judge_in_fork  # noqa: E402  (TVM, the oracle, imported once; each text is judged in a fork)

    seeds = []
    for d in sorted(os.listdir(os.path.join(ROOT, "tests", "corpus"))):
        exp = os.path.join(ROOT, "tests", "corpus", d, "expected.txt")
        if os.path.isfile(exp):
            for line in open(exp):
                if line.rstrip().endswith(": equal"):
                    seeds.append(os.path.join(ROOT, "tests", "corpus", d, line.split(":")[0]))
    os.makedirs(args.out, exist_ok=True)
    for old in os.listdir(args.out):  # this run's findings only
        if old.endswith((".tir", ".err")):
            os.remove(os.path.join(args.out, old))
    rnd = random.Random(args.seed)
    stats, kept, t0 = {}, 0, time.time()
    cur = os.path.join(args.out, "cur.tir")
    for it in range(args.n):
        f = rnd.choice(seeds)
        src = m = open(f).read()
        for _ in range(rnd.choice([1, 1, 1, 2, 3])):
            try:
                m = mutate(rnd, m) or m
            except (tokenize.TokenError, IndentationError, SyntaxError):
                pass
        if m == src:
            continue
        open(cur, "w").write(m)
        try:
            r = subprocess.run([args.tirc, cur], capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            r = None
        cat = judge_in_fork(m, r)  # TVM's reader can segfault on an odd text
        stats[cat] = stats.get(cat, 0) + 1
        if cat not in ("equal", "both-refuse"):
            kept += 1
            q = os.path.join(args.out, "%s_%05d.tir" % (cat, kept))
            open(q, "w").write("# from %s\n" % os.path.relpath(f, ROOT) + m)
            if r is not None:
                open(q + ".err", "w").write(r.stderr[:2000])
        if (it + 1) % 500 == 0:
            print("%d mutants, %d s: %s" % (it + 1, time.time() - t0, stats), flush=True)
    print("diff_tvm: %d mutants: %s; kept in %s" % (args.n, ", ".join("%s %d" % kv for kv in sorted(stats.items())), args.out))
    return 1 if stats.get("crash") else 0


if __name__ == "__main__":
    sys.exit(main())
