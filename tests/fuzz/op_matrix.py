"""op_matrix.py TIRC [--every N] [--list] - TVM's operators and intrinsics
over a matrix of operand types, each read by tirc and by TVM 0.27.

Every case is a one-statement function: an operator (`x < y`, `x and 1`),
an intrinsic (`T.isnan(x)`, `T.pow(1.5, T.float16(2.0))`), a cast, a
T.Select or a store, over parameters of a dozen dtypes and Python literals.
Each ends in one of:

  equal        TVM and tirc read it, and TVM reads tirc's print back equal
  refused      both refuse it
  tirc-only    tirc refuses what TVM reads (deliberate: tirc does not model
               TVM's int32 calls of float math, T.exp(i), or its `/` of ints)
  lenient      tirc reads what TVM refuses (a T.Cast to "handle", which
               tirc's code generators take)
  tvm-own      TVM reads it but not its own print of it (a float64 past
               float32's range: T.float64(1e300) is refused), nor tirc's
  DIFFER       both read it, differently: a silent change
  UNREADABLE   TVM reads the input but not tirc's print of it

DIFFER and UNREADABLE fail the run (exit 1); the others are counted.  Found
by it (twenty-first session): vector `and` / `or` (TVM's bitwise), the
float classes and abs by dtype, T.pow's conversion, the bitwise
functions' operands, T.Select's numbers, comparisons of mixed types.
"""
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))


def cases():
    """(signature, statement) pairs, in a fixed order"""
    out = []
    dts = ["bool", "int8", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64",
           "float8_e4m3fn", "int32x4", "float32x4", "float16x4", "handle"]
    un = ("exp exp2 exp10 log log2 log10 log1p sqrt rsqrt sin cos tan sinh cosh tanh asin acos atan "
          "asinh acosh atanh erf sigmoid floor ceil round trunc nearbyint fabs abs popcount clz "
          "bitwise_not likely isnan isinf isfinite").split()
    bi = ("pow fmod atan2 hypot copysign nextafter ldexp bitwise_and bitwise_or bitwise_xor shift_left "
          "shift_right floordiv floormod truncdiv truncmod min max").split()
    pairs = [("int32", "int64"), ("int32", "float32"), ("float32", "float16"), ("int8", "int32"),
             ("int32", "int32x4"), ("float32x4", "float32")]
    for op in un:
        for d in dts:
            out.append((f"x: T.{d}", f"T.evaluate(T.{op}(x))"))
    for op in bi:
        for d in dts:
            out.append((f"x: T.{d}, y: T.{d}", f"T.evaluate(T.{op}(x, y))"))
        for d1, d2 in pairs:
            out.append((f"x: T.{d1}, y: T.{d2}", f"T.evaluate(T.{op}(x, y))"))
    lits = ["1", "1.5", "True", "-2", "T.int64(3)", "T.float16(2.0)"]
    few = ["bool", "int8", "int32", "int64", "float16", "float32", "float64", "int32x4", "float32x4"]
    for op in "exp log sqrt floor round fabs popcount clz bitwise_not likely sigmoid isnan".split():
        for lit in lits:
            out.append(("x: T.int32", f"T.evaluate(T.{op}({lit}))"))
    for op in bi:
        for d in few:
            for lit in lits:
                out.append((f"x: T.{d}", f"T.evaluate(T.{op}(x, {lit}))"))
                out.append((f"x: T.{d}", f"T.evaluate(T.{op}({lit}, x))"))
        for l1 in lits:
            for l2 in lits:
                out.append(("x: T.int32", f"T.evaluate(T.{op}({l1}, {l2}))"))
    ops = "+ - * / // % & | ^ << >> < <= == != > >= and or".split()
    opd = ["bool", "int8", "int32", "int64", "uint8", "float16", "float32", "int32x4", "float32x4"]
    mixed = [("int32", "int64"), ("int8", "int32"), ("int32", "float32"), ("float16", "float32"),
             ("bool", "int32"), ("int32", "int32x4"), ("float32", "float32x4"), ("uint8", "int8"),
             ("int32", "uint8"), ("bool", "float32")]
    for op in ops:
        for d in opd:
            for lit in ["1", "1.5", "True", "-2", "0"]:
                out.append((f"x: T.{d}", f"T.evaluate(x {op} {lit})"))
                out.append((f"x: T.{d}", f"T.evaluate({lit} {op} x)"))
            out.append((f"x: T.{d}, y: T.{d}", f"T.evaluate(x {op} y)"))
        for d1, d2 in mixed:
            out.append((f"x: T.{d1}, y: T.{d2}", f"T.evaluate(x {op} y)"))
    for op in ["-", "~", "not "]:
        for d in opd:
            out.append((f"x: T.{d}", f"T.evaluate({op}x)"))
    vd = ["bool", "int8", "int32", "int64", "uint8", "float16", "bfloat16", "float32", "int32x4", "float32x4"]
    for bd in ["int8", "int32", "int64", "float16", "float32", "bool", "uint8"]:
        sig = f'A: T.Buffer((4,), "{bd}")'
        for d in vd:
            out.append((f"x: T.{d}, {sig}", "A[0] = x"))
        for lit in ["1", "1.5", "True", "-2", "300", "T.int64(3)"]:
            out.append((sig, f"A[0] = {lit}"))
        for d in ["int8", "int32", "int64", "uint8", "bool", "float32"]:
            out.append((f"x: T.{d}, {sig}", "A[x] = A[0]"))
        for lit in ["1", "1.5", "True", "T.int64(1)", "T.int8(1)"]:
            out.append((sig, f"A[{lit}] = A[0]"))
    for d in vd:
        for form in ["T.Select(c, x, {y})", "T.if_then_else(c, x, {y})", "T.if_then_else(c, {y}, x)"]:
            for y in ["x", "1", "1.5", "True", "T.int64(1)", "T.float16(1.0)"]:
                out.append((f"x: T.{d}, c: T.bool", "T.evaluate(" + form.format(y=y) + ")"))
        for t in ["int8", "int32", "int64", "uint8", "float16", "bfloat16", "float32", "bool", "int32x4",
                  "float32x4", "float8_e4m3fn", "handle"]:
            for form in [f'T.Cast("{t}", x)', f'T.reinterpret("{t}", x)', f'T.cast(x, "{t}")']:
                out.append((f"x: T.{d}", f"T.evaluate({form})"))
    for lit in ["1", "1.5", "True", "-2", "300", "T.int64(3)"]:
        for t in ["int8", "int32", "float16", "bool", "uint8"]:
            out.append(("", f'T.evaluate(T.Cast("{t}", {lit}))'))
            out.append(("", f'T.evaluate(T.cast({lit}, "{t}"))'))
    # statements: loop bounds of every kind and dtype, typed lets and local
    # scalars, ramps and broadcasts, buffer shapes and indices, conditions
    sig = 'A: T.Buffer((16,), "float32"), n: T.int32, m: T.int64'
    for e in ["4", "T.int64(4)", "n", "m", "T.int8(4)", "True", "4.0", "T.uint8(4)"]:
        for kind in ["range({e})", "T.serial({e})", "T.parallel({e})", "T.unroll({e})", "T.vectorized({e})",
                     'T.thread_binding({e}, thread="threadIdx.x")']:
            out.append((sig, f"for i in {kind.format(e=e)}:\n        A[i] = 1.0"))
        for mn in ["0", "T.int64(0)", "1", "n", "T.int8(1)"]:
            out.append((sig, f"for i in range({mn}, {e}):\n        A[i] = 1.0"))
            out.append((sig, f"for i in T.serial({mn}, {e}):\n        A[i] = 1.0"))
        out.append((sig, f"for i, j in T.grid({e}, 2):\n        A[i + j] = 1.0"))
        out.append((sig, f"for i in range(0, {e}, 2):\n        A[i] = 1.0"))
        out.append((sig, f"for i in range(0, 8, {e}):\n        A[i] = 1.0"))
    for t in ["int8", "int32", "int64", "float32", "float16", "bool", "uint8"]:
        for v in ["1", "300", "1.5", "True", "T.int64(5)", "n", "m", "A[0]"]:
            out.append((sig, f'x: T.let[T.{t}] = {v}\n    A[0] = T.Cast("float32", x)'))
            out.append((sig, f'x: T.{t} = {v}\n    A[0] = T.Cast("float32", x)'))
    for lanes in ["4", "2", "T.int64(4)", "n"]:
        for b in ["0", "n", "m", "T.int8(0)", "1.5"]:
            out.append((sig, f"A[T.Ramp({b}, 1, {lanes})] = T.Broadcast(T.float32(1), 4)"))
            out.append((sig, f"T.evaluate(T.Broadcast({b}, {lanes}))"))
        out.append((sig, f"T.evaluate(T.Ramp(0, T.int64(1), {lanes}))"))
    for sh in ["(4,)", "(T.int64(4),)", "(n,)", "(m,)", "(n, m)", "(4.0,)", "(True,)", "(T.int8(4),)"]:
        out.append((sig, f"B = T.alloc_buffer({sh})\n    B[0] = T.float32(1)"))
        out.append((sig, f"B = T.decl_buffer({sh}, data=A.data)\n    A[0] = B[0]"))
    for idx in ["0", "T.int64(0)", "m", "n", "T.int8(1)", "T.uint8(1)", "n + m", "T.int64(1) + 1"]:
        out.append((sig, f"A[{idx}] = A[{idx}]"))
    for c in ["n", "m", "1", "True", "n < 2", "A[0]", "T.int8(1)", "1.5", "n and m", "n > 1 and m > 1"]:
        out.append((sig, f"if {c}:\n        A[0] = 1.0"))
        out.append((sig, f"while {c}:\n        A[0] = 1.0"))
        out.append((sig, f"T.evaluate(T.if_then_else({c}, 1, 0))"))
        out.append((sig, f'assert {c}, "msg"\n    A[0] = 1.0'))
    # a Python float where TVM converts it (a float32, inf too; past float32
    # refused) and where it infers its type (a let, a local scalar: float64)
    sig = 'A: T.Buffer((16,), "float32"), x: T.float32, c: T.bool, h: T.float16, d: T.float64'
    ctx = ['T.evaluate({v})', 'T.evaluate(x + {v})', 'T.evaluate(T.call_extern("int32", "f", {v}))',
           'with T.attr(A.data, "k", {v}):\n        A[0] = 1.0', 'T.evaluate(T.max(x, {v}))',
           'T.evaluate(T.if_then_else(c, {v}, x))', 'A[0] = {v}', 'T.evaluate(T.Cast("float32", {v}))',
           'T.evaluate(T.Select(c, {v}, {v}))', 'y: T.let = {v}\n    T.evaluate(y)', 'y = {v}\n    T.evaluate(y)',
           'y: T.let[T.float32] = {v}\n    T.evaluate(y)', 'y: T.let[T.float64] = {v}\n    T.evaluate(y)',
           'T.evaluate(T.exp({v}))', 'T.evaluate(x < {v})', 'T.evaluate(T.Broadcast({v}, 4))',
           'T.func_attr({{"k": {v}}})\n    A[0] = 1.0', 'T.evaluate(h + {v})', 'T.evaluate(d + {v})',
           'T.evaluate(T.min({v}, {v}))', 'T.evaluate(T.pow(x, {v}))']
    for v in ["float('inf')", "float('nan')", "-float('inf')", "1e300", "3.5e38", "1.5", "1e-50"]:
        for cx in ctx:
            out.append((sig, cx.format(v=v)))
    return out


def tvm_read(tvmref, src):
    """TVM's reading of src, or None; TVM's C++ warnings (pow's) silenced"""
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        return tvmref.read(src)
    except Exception:  # noqa: BLE001 - TVM refuses it
        return None
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


def main():
    tirc = os.path.abspath(sys.argv[1])
    every = int(sys.argv[sys.argv.index("--every") + 1]) if "--every" in sys.argv else 1
    listing = "--list" in sys.argv
    try:
        import tvmref  # noqa: F401
    except Exception as e:  # noqa: BLE001
        print(f"op_matrix: skipped (no tvm: {e})")
        return 0
    import tvmref
    all_cases = cases()[::every]
    counts = {}
    bad = 0
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "case.tir")
        for sig, stmt in all_cases:
            src = f"from tvm.script import tirx as T\n\n@T.prim_func\ndef f({sig}):\n    {stmt}\n"
            with open(path, "w") as f:
                f.write(src)
            want = tvm_read(tvmref, src)
            p = subprocess.run([tirc, path], capture_output=True, text=True, timeout=60)
            if p.returncode not in (0, 1):
                kind = "CRASH"
            elif p.returncode:
                kind = "tirc-only" if want is not None else "refused"
            elif want is None:
                kind = "lenient"
            else:
                got = tvm_read(tvmref, p.stdout)
                kind = "UNREADABLE" if got is None else "equal" if tvmref.equal(want, got)[0] else "DIFFER"
                if kind == "UNREADABLE" and tvm_read(tvmref, want.script()) is None:
                    kind = "tvm-own"  # TVM cannot read its own print either (T.float64(1e300))
            counts[kind] = counts.get(kind, 0) + 1
            if kind in ("DIFFER", "UNREADABLE", "CRASH"):
                bad += 1
                print(f"FAIL {kind}: def f({sig}): {stmt}")
            elif listing and kind in ("tirc-only", "lenient"):
                print(f"{kind}: def f({sig}): {stmt}")
    order = ["equal", "refused", "tirc-only", "lenient", "tvm-own", "DIFFER", "UNREADABLE", "CRASH"]
    print(f"op_matrix: {len(all_cases)} cases{'' if every == 1 else f' (every {every}th)'}: " +
          ", ".join(f"{counts.get(k, 0)} {k}" for k in order))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
