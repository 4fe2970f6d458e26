#!/usr/bin/env python3
"""gen_tvm_style.py - a generative differential fuzz of tirc's reader and
printer against TVM 0.27's parser (not mutation-based; not in make test).

Each program is written the way TVM's tests write TIR, its constructs
combined at random: loops of every kind (T.grid, T.serial with
annotations, T.parallel, T.unroll, T.vectorized, T.thread_binding),
s_tir blocks with T.axis.spatial/reduce, T.reads/T.writes given or left to
inference, T.init and nested blocks, T.sblock_attr of every value type,
match_buffer with strides / elem_offset / symbolic (int32 or int64)
shapes, T.let binds, T.if_then_else and T.Select, vector Ramp/Broadcast
stores, T.alloc_buffer / T.decl_buffer, thread launches (T.launch_thread,
T.env_thread), a T.comm_reducer allreduce, casts between every dtype
(float8, bfloat16, float16, int4, uint8, bool, int64, ...).  Programs are
well typed as TVM types them, so most are read by both; tirc's reading is
printed and TVM reads the print back, as diff_tvm.py judges a mutant:

  equal / both-refuse / DIFFER (a silent change) / lenient / refused-* /
  out-unreadable / crash / tvm-crash

Every program not equal or both-refuse is kept in OUT with tirc's stderr.
Exit status 1 when any is a crash or a DIFFER.

usage: gen_tvm_style.py TIRC OUT [--n N] [--seed S]
"""
import argparse
import os
import random
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "corpus"))

FLOATS = ["float32", "float16", "float64", "bfloat16"]
F8 = ["float8_e4m3fn", "float8_e5m2"]
INTS = ["int32", "int64", "int8", "uint8", "int16", "uint32"]
ALL = FLOATS + INTS + ["bool", "int4"] + F8
MATH = ["exp", "log", "sqrt", "tanh", "sigmoid", "fabs", "floor", "ceil", "round", "sin", "cos"]


class Gen:
    def __init__(self, rnd):
        self.r = rnd
        self.n = 0
        self.ivars = []  # (name, dtype, extent) of loop/iter vars in scope
        self.lets = []   # (name, dtype)
        self.bufs = {}   # name -> (dtype, shape list of str, index dtype)

    def fresh(self, p):
        self.n += 1
        return "%s%d" % (p, self.n)

    # ---- expressions ----
    def const(self, t):
        r = self.r
        if t == "bool":
            return r.choice(["T.bool(True)", "T.bool(False)"])
        if t in FLOATS or t in F8:
            v = r.choice(["0.5", "1.0", "-2.0", "3.25", "0.0", "100.0"])
            if t == "float32" and r.random() < 0.3:
                return v
            return "T.%s(%s)" % (t, v)
        lo, hi = (0, 7) if t in ("int4", "uint8", "uint32") else (-5, 9)
        v = r.randint(lo, hi)
        if t == "int4":  # TVM 0.27's T has no int4 (tirc reads T.int4(v): a name only, left)
            return 'T.Cast("int4", %d)' % v
        if t == "int32" and r.random() < 0.5:
            return str(v)
        return "T.%s(%d)" % (t, v)

    def index(self, ext, t="int32"):
        """an in-range index of dtype t for an extent ext (an int)"""
        r = self.r
        cands = [v for v in self.ivars if v[1] == t]
        if not cands or r.random() < 0.1:
            k = r.randint(0, ext - 1)
            return str(k) if t == "int32" else "T.%s(%d)" % (t, k)
        name, _, e = r.choice(cands)
        one = "1" if t == "int32" else "T.%s(1)" % t
        c = lambda k: str(k) if t == "int32" else "T.%s(%d)" % (t, k)  # noqa: E731
        form = r.randint(0, 5)
        if form == 0 or e is None:
            x = "%s %% %s" % (name, c(ext)) if (e is None or e > ext) else name
        elif form == 1:
            x = "(%s * %s + %s) %% %s" % (name, c(r.randint(1, 4)), c(r.randint(0, 3)), c(ext))
        elif form == 2:
            x = "%s // %s %% %s" % (name, c(r.randint(1, 4)), c(ext))
        elif form == 3:
            x = "T.min(%s, %s)" % (name, c(ext - 1))
        elif form == 4:
            x = "T.max(%s - %s, %s) %% %s" % (name, one, c(0), c(ext))
        else:
            x = "T.floormod(%s + %s, %s)" % (name, c(r.randint(0, 5)), c(ext))
        if e is not None and e <= ext and form == 0:
            return name
        return x

    def load(self, t):
        bs = [b for b, (bt, sh, it) in self.bufs.items() if bt == t and all(s.isdigit() for s in sh)]
        if not bs:
            return None
        b = self.r.choice(bs)
        _, sh, it = self.bufs[b]
        return "%s[%s]" % (b, ", ".join(self.index(int(s), it) for s in sh))

    def region(self):
        """a buffer region as TVM's tests write one: points, slices, whole dims"""
        r = self.r
        bs = [b for b, (bt, sh, it) in self.bufs.items() if all(x.isdigit() for x in sh)]
        b = r.choice(bs)
        _, sh, it = self.bufs[b]
        parts = []
        for x in sh:
            e = int(x)
            k = r.randint(0, 3)
            if k == 0:
                parts.append(self.index(e, it))
            elif k == 1:
                lo = r.randint(0, e - 1)
                parts.append("%d:%d" % (lo, r.randint(lo + 1, e)) if it == "int32" else
                             "T.%s(%d):T.%s(%d)" % (it, lo, it, r.randint(lo + 1, e)))
            elif k == 2:
                i = self.index(max(e // 2, 1), it)
                parts.append("%s:%s + %s" % (i, i, "2" if it == "int32" else "T.%s(2)" % it))
            else:
                parts.append("0:%d" % e if it == "int32" else "T.%s(0):T.%s(%d)" % (it, it, e))
        return "%s[%s]" % (b, ", ".join(parts))

    def cond(self, d):
        r = self.r
        k = r.randint(0, 5)
        if k <= 2 or d <= 0:
            t = r.choice(["int32", "float32"] + ([v[1] for v in self.ivars] or []))
            op = r.choice(["<", "<=", ">", ">=", "==", "!="])
            return "%s %s %s" % (self.expr(t, d - 1), op, self.expr(t, d - 1))
        if k == 3:
            return "%s %s %s" % (self.cond(d - 1), r.choice(["and", "or"]), self.cond(d - 1))
        if k == 4:
            return "not (%s)" % self.cond(d - 1)
        return "T.likely(%s)" % self.cond(d - 1)

    def expr(self, t, d=2):
        r = self.r
        if t == "bool":
            return self.cond(d) if d > 0 and r.random() < 0.7 else self.const("bool")
        if d <= 0 or r.random() < 0.25:
            opts = [self.const(t)]
            ld = self.load(t)
            if ld:
                opts += [ld, ld]
            opts += [v[0] for v in self.ivars if v[1] == t] + [v[0] for v in self.lets if v[1] == t]
            return r.choice(opts)
        k = r.randint(0, 9)
        isf = t in FLOATS
        isint = t in INTS or t == "int4"
        if t in F8 or t == "int4":  # narrow types: casts and loads only
            src = r.choice(["float32", "float16", "int32"] if t in F8 else ["int32", "int8"])
            return "T.Cast(\"%s\", %s)" % (t, self.expr(src, d - 1))
        if k == 2 and t in ("int64", "float32", "float64", "int32"):
            lower = {"int64": ["int32", "int8", "uint8", "bool"], "float32": ["float16", "bfloat16", "int32", "int8"],
                     "float64": ["float32", "int64"], "int32": ["int8", "int16", "uint8", "bool"]}[t]
            return "%s %s %s" % (self.paren(t, d), r.choice(["+", "-", "*"]), self.paren(r.choice(lower), d))
        if k <= 2:
            op = r.choice(["+", "-", "*"])
            return "%s %s %s" % (self.paren(t, d), op, self.paren(t, d))
        if k == 3:
            return "T.%s(%s, %s)" % (r.choice(["min", "max"]), self.expr(t, d - 1), self.expr(t, d - 1))
        if k == 4:
            return "T.if_then_else(%s, %s, %s)" % (self.cond(d - 1), self.expr(t, d - 1), self.expr(t, d - 1))
        if k == 5:
            return "T.Select(%s, %s, %s)" % (self.cond(d - 1), self.expr(t, d - 1), self.expr(t, d - 1))
        if k == 6:
            src = r.choice(ALL)
            return "T.Cast(\"%s\", %s)" % (t, self.expr(src, d - 1))
        if k == 7 and isf and t != "bfloat16":
            return "T.%s(%s)" % (r.choice(MATH), self.expr(t, d - 1))
        if k == 7 and isint:
            c = r.randint(1, 8)
            cc = str(c) if t == "int32" else "T.%s(%d)" % (t, c)
            return "%s(%s, %s)" % (r.choice(["T.floordiv", "T.floormod", "T.truncdiv", "T.truncmod"]),
                                   self.expr(t, d - 1), cc)
        if k == 8 and isint and t != "bool":
            c = r.randint(0, 3)
            cc = str(c) if t == "int32" else "T.%s(%d)" % (t, c)
            return "%s %s %s" % (self.paren(t, d), r.choice(["&", "|", "^", "<<", ">>"]), cc)
        return "(%s)" % self.expr(t, d - 1)

    def paren(self, t, d):
        return "(%s)" % self.expr(t, d - 1)

    # ---- statements ----
    def store(self, ind):
        r = self.r
        bs = [b for b, (bt, sh, it) in self.bufs.items() if all(s.isdigit() for s in sh)]
        b = r.choice(bs)
        t, sh, it = self.bufs[b]
        if r.random() < 0.15 and len(sh) == 1 and int(sh[0]) >= 4 and t in ("float32", "int32", "float16"):
            # a vector store: Ramp index, Broadcast or vector loads
            base = r.randint(0, int(sh[0]) - 4)
            val = r.choice(["T.Broadcast(%s, 4)" % self.expr(t, 1),
                            "%s[T.Ramp(%d, 1, 4)]" % (b, r.randint(0, int(sh[0]) - 4)),
                            "%s[T.Ramp(%d, 1, 4)] + T.Broadcast(%s, 4)" % (b, base, self.const(t))])
            return ["%s%s[T.Ramp(%d, 1, 4)] = %s" % (ind, b, base, val)]
        idx = ", ".join(self.index(int(s), it) for s in sh)
        return ["%s%s[%s] = %s" % (ind, b, idx, self.expr(t, r.randint(1, 3)))]

    def loop_head(self, ind, v, ext, t):
        r = self.r
        e = str(ext) if t == "int32" else "T.%s(%d)" % (t, ext)
        k = r.randint(0, 7)
        if k == 0:
            return "%sfor %s in T.serial(%s, annotations={%s})" % (ind, v, e, self.annotation_items())
        if k == 1:
            return "%sfor %s in T.parallel(%s)" % (ind, v, e)
        if k == 2:
            return "%sfor %s in T.unroll(%s)" % (ind, v, e)
        if k == 3:
            return "%sfor %s in T.vectorized(%s)" % (ind, v, e)
        return "%sfor %s in range(%s)" % (ind, v, e)

    def annotation_items(self):
        r = self.r
        vals = ['1', '"str_val"', '0.5', 'True', '[1, 2, 3]', '{"a": 1}', 'T.int64(7)', 'T.float32(2.5)',
                '"pragma"', '[]', '["x", 1]']
        return ", ".join('"ann_%d": %s' % (i, r.choice(vals)) for i in range(r.randint(1, 3)))

    def block(self, ind, depth, loops):
        """an s_tir block under loops (name, dtype, extent)"""
        r = self.r
        out = []
        name = self.fresh("b")
        out.append('%swith T.sblock("%s"):' % (ind, name))
        ind2 = ind + "    "
        saved = list(self.ivars)
        reduce_axes = []
        newvars = []
        if loops and r.random() < 0.5:
            kinds = "".join(r.choice("SSR") for _ in loops)
            names = [self.fresh("v") for _ in loops]
            out.append('%s%s = T.axis.remap("%s", [%s])' % (ind2, ", ".join(names), kinds,
                                                              ", ".join(l[0] for l in loops)))
            for n, (ln, lt, le), k in zip(names, loops, kinds):
                newvars.append((n, lt, le))
                if k == "R":
                    reduce_axes.append(n)
        else:
            for (ln, lt, le) in loops:
                n = self.fresh("v")
                k = r.choice(["spatial", "spatial", "reduce"])
                dom = str(le) if lt == "int32" else "T.%s(%d)" % (lt, le)
                out.append("%s%s = T.axis.%s(%s, %s)" % (ind2, n, k, dom, ln))
                newvars.append((n, lt, le))
                if k == "reduce":
                    reduce_axes.append(n)
        self.ivars = [v for v in self.ivars if v not in loops] + newvars
        if r.random() < 0.3:
            out.append("%sT.where(%s)" % (ind2, self.cond(1)))
        body = []
        bs = [b for b, (bt, sh, it) in self.bufs.items() if all(s.isdigit() for s in sh) and bt in FLOATS + INTS]
        if reduce_axes and bs and r.random() < 0.7:
            b = r.choice(bs)
            t, sh, it = self.bufs[b]
            idx = ", ".join(self.index(int(s), it) for s in sh)
            body.append("%swith T.init():" % ind2)
            body.append("%s    %s[%s] = %s" % (ind2, b, idx, self.const(t)))
            body.append("%s%s[%s] = %s[%s] + %s" % (ind2, b, idx, b, idx, self.expr(t, 2)))
        else:
            body += self.stmts(ind2, depth - 1, allow_block=True)
        if r.random() < 0.35:  # regions as written, else inferred
            out.append("%sT.reads(%s)" % (ind2, ", ".join(self.region() for _ in range(r.randint(0, 2)))))
            out.append("%sT.writes(%s)" % (ind2, ", ".join(self.region() for _ in range(r.randint(1, 2)))))
        if r.random() < 0.3:
            out.append("%sT.sblock_attr({%s})" % (ind2, self.annotation_items()))
        if r.random() < 0.2:
            ab = self.fresh("L")
            out.append('%s%s = T.sblock_alloc_buffer((4,), "float32", scope="local")' % (ind2, ab))
        out += body
        self.ivars = saved
        return out

    def stmts(self, ind, depth, allow_block=False, nmax=3):
        r = self.r
        out = []
        for _ in range(r.randint(1, nmax)):
            k = r.randint(0, 9)
            if depth <= 0 or k <= 2:
                out += self.store(ind)
            elif k == 3:
                out.append("%sif %s:" % (ind, self.cond(2)))
                out += self.stmts(ind + "    ", depth - 1, allow_block)
                if r.random() < 0.5:
                    out.append("%selse:" % ind)
                    out += self.stmts(ind + "    ", depth - 1, allow_block)
            elif k == 4:
                t = r.choice(["int32", "float32", "int64", "float16"])
                v = self.fresh("x")
                out.append("%s%s: T.let[T.%s] = %s" % (ind, v, t, self.expr(t, 2)))
                self.lets.append((v, t))
                out += self.stmts(ind, depth - 1, allow_block, nmax=2)
                self.lets.remove((v, t))
                return out  # a let scopes over the rest
            elif k == 5 and allow_block:
                loops = []
                head = []
                cur = ind
                if r.random() < 0.5:
                    n = r.randint(1, 3)
                    vs = [self.fresh("i") for _ in range(n)]
                    exts = [r.choice([2, 4, 8, 16]) for _ in range(n)]
                    head.append("%sfor %s in T.grid(%s):" % (cur, ", ".join(vs), ", ".join(map(str, exts))))
                    loops = [(v, "int32", e) for v, e in zip(vs, exts)]
                    cur += "    "
                out += head
                self.ivars += loops
                out += self.block(cur, depth, loops)
                for l in loops:
                    self.ivars.remove(l)
            else:
                v = self.fresh("i")
                t = "int64" if r.random() < 0.15 else "int32"
                ext = r.choice([1, 2, 4, 8, 16])
                out.append(self.loop_head(ind, v, ext, t) + ":")
                self.ivars.append((v, t, ext))
                out += self.stmts(ind + "    ", depth - 1, allow_block)
                self.ivars.remove((v, t, ext))
        return out

    # ---- a program ----
    def program(self):
        r = self.r
        s_tir = r.random() < 0.6
        params, pre = [], []
        for i in range(r.randint(1, 4)):
            b = "B%d" % i
            t = r.choice(ALL if r.random() < 0.4 else ["float32", "float32", "int32", "float16"])
            nd = r.randint(1, 2)
            sh = [str(r.choice([4, 8, 16])) for _ in range(nd)]
            it = "int64" if r.random() < 0.2 else "int32"
            form = r.randint(0, 4)
            if it == "int64":  # a shape of int64 extents: int64 indices
                params.append('%s: T.Buffer((%s), "%s")' % (b, ", ".join("T.int64(%s)" % x for x in sh) +
                                                             ("," if nd == 1 else ""), t))
            elif form <= 2:
                params.append('%s: T.Buffer((%s), "%s")' % (b, ", ".join(sh) + ("," if nd == 1 else ""), t))
            else:
                h = "h%d" % i
                params.append("%s: T.handle" % h)
                kws = []
                if r.random() < 0.4 and nd == 2:
                    kws.append("strides=(%s, 1)" % (int(sh[1]) + r.choice([0, 4])))
                if r.random() < 0.3:
                    kws.append("elem_offset=%s" % r.choice(["0", "4", "T.int32(8)"]))
                if r.random() < 0.3:
                    kws.append("offset_factor=%d" % r.choice([1, 4, 16]))
                if r.random() < 0.3:
                    kws.append("align=%d" % r.choice([16, 64]))
                shape = ", ".join(sh) + ("," if nd == 1 else "")
                pre.append('    %s = T.match_buffer(%s, (%s), "%s"%s)' % (b, h, shape, t,
                                                                         "".join(", " + k for k in kws)))
            self.bufs[b] = (t, sh, it)
        if r.random() < 0.3:  # a symbolic shape: read, not stored into
            n = "n"
            nt = r.choice(["int32", "int64"])
            params.append("h_sym: T.handle")
            pre.append("    %s = T.%s()" % (n, nt))
            pre.append('    S = T.match_buffer(h_sym, (%s, 4), "float32")' % n)
        body = []
        ind = "    "
        if r.random() < 0.2:
            pre.append('    T.func_attr({"global_symbol": "main", "tirx.noalias": True})')
        launch = r.random() < 0.25 and not s_tir
        if launch:
            if r.random() < 0.5:
                body.append('    bx = T.launch_thread("blockIdx.x", %d)' % r.choice([1, 2, 4]))
                body.append('    tx = T.launch_thread("threadIdx.x", %d)' % r.choice([4, 8, 32]))
                self.ivars += [("bx", "int32", None), ("tx", "int32", None)]
            else:
                body.append('    tx = T.env_thread("threadIdx.x")')
                body.append("    with T.launch_thread(tx, %d):" % r.choice([4, 8, 32]))
                self.ivars += [("tx", "int32", None)]
                ind = "        "
        if r.random() < 0.3:
            a = self.fresh("A")
            body.append('%s%s = T.%s((%d,), "%s"%s)' % (ind, a, r.choice(["alloc_buffer", "decl_buffer"]),
                                                         r.choice([4, 8]), r.choice(["float32", "int32", "float16"]),
                                                         r.choice(["", ', scope="local"', ', scope="shared"'])))
            self.bufs[a] = (body[-1].split('"')[1], [re.search(r"\((\d+),\)", body[-1]).group(1)], "int32")
        if launch and r.random() < 0.4 and "tx" in [v[0] for v in self.ivars]:
            red = self.fresh("red")
            body.append('%s%s = T.alloc_buffer((1,), scope="local")' % (ind, red))
            src = self.load("float32") or "T.float32(1.0)"
            body.append('%swith T.attr(T.comm_reducer(lambda x, y: x %s y, [T.float32(%s)]), "reduce_scope", '
                        'T.reinterpret("handle", T.uint64(0))):' % (ind, r.choice(["+", "*"]), r.choice(["0.0", "1.0"])))
            body.append("%s    T.tvm_thread_allreduce(T.uint32(1), %s, T.bool(True), %s[0], tx)" % (ind, src, red))
        body += self.stmts(ind, r.randint(1, 4), allow_block=s_tir)
        head = "@T.prim_func(s_tir=True)" if s_tir else "@T.prim_func"
        return "# from tvm.script import tirx as T\n\n%s\ndef main(%s):\n%s\n" % (
            head, ", ".join(params), "\n".join(pre + body))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tirc")
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    from tvm_judge import judge_in_fork  # noqa: E402  (TVM, the oracle, imported once; each text is judged in a fork)

    os.makedirs(args.out, exist_ok=True)
    for old in os.listdir(args.out):
        if old.endswith((".tir", ".err")):
            os.remove(os.path.join(args.out, old))
    rnd = random.Random(args.seed)
    stats, kept, t0 = {}, 0, time.time()
    cur = os.path.join(args.out, "cur.tir")
    for it in range(args.n):
        m = Gen(rnd).program()
        open(cur, "w").write(m)
        try:
            r = subprocess.run([args.tirc, cur], capture_output=True, text=True, timeout=30)
        except subprocess.TimeoutExpired:
            r = None
        cat = judge_in_fork(m, r)  # TVM's reader can segfault on an odd text
        stats[cat] = stats.get(cat, 0) + 1
        if cat not in ("equal", "both-refuse"):
            kept += 1
            q = os.path.join(args.out, "%s_%05d.tir" % (cat, it))
            open(q, "w").write("# gen_tvm_style seed %d #%d\n" % (args.seed, it) + m)
            if r is not None:
                open(q + ".err", "w").write(r.stderr[:2000])
        if (it + 1) % 200 == 0:
            print("%d programs, %d s: %s" % (it + 1, time.time() - t0, stats), flush=True)
    print("gen_tvm_style: %d programs: %s; kept in %s" % (
        args.n, ", ".join("%s %d" % kv for kv in sorted(stats.items())), args.out))
    return 1 if stats.get("crash") or stats.get("DIFFER") else 0


if __name__ == "__main__":
    sys.exit(main())
