#!/usr/bin/env python3
"""jam_stress.py HARNESS TIRC [COUNT] [SEED]: random reduction nests for the
C printer's unroll-and-jam (src/codegen_c/c_jam.c), each run as generated C
against the interpreter on the program as written (c_vs_exec.sh).

Each program accumulates into buffers through order-sensitive int32 chains
(acc * 3 + x, exact in wrapping arithmetic, so a reordered or interleaved
chain gives another value), at indices of several forms: one element per
iteration of the spatial loop (c*i + d, c in 1, 2, -1, 3), shared between
iterations (i // 2), read where another iteration writes (i + 1), through
temporaries that the memory plan places in one workspace, under a vectorized
inner loop, with an init peeled or kept as an `if`.  Some forms are jammed,
some must be refused; both must compute what the interpreter computes.  The
script fails when any program disagrees, and when fewer than a quarter of
them were jammed (the test would not be testing the transformation)."""
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def program(rng, n):
    E = rng.choice([2, 3, 5, 8, 10, 12, 16])
    K0 = rng.choice([1, 2, 4])
    K1 = rng.choice([16, 33, 64, 80])
    K = K0 * K1
    form = rng.choice(["plain", "plain", "neg", "stride2", "stride3", "half", "shift", "vec", "temp", "two"])
    init = "peel" if form == "temp" else rng.choice(["none", "peel", "if_inner"])
    lines = []
    params = [f'A: T.Buffer(({E}, {K}), "int32")']
    vec = form == "vec"
    L = 4 if vec else 1
    if form == "neg":
        idx, nb = f"{E - 1} - i", E
    elif form == "stride2":
        idx, nb = "i * 2 + 1", 2 * E + 1
    elif form == "stride3":
        idx, nb = "i * 3", 3 * E
    elif form == "half":
        idx, nb = "i // 2", (E + 1) // 2
    elif form == "vec":
        idx, nb = "i * 4 + j", 4 * E
    else:
        idx, nb = "i", E + 1
    params.append(f'B: T.Buffer(({nb},), "int32")')
    if form == "two":
        params.append(f'D: T.Buffer(({E},), "int32")')
    if form == "temp":
        params.append(f'D: T.Buffer(({E},), "int32")')
    head = [
        "from tvm.script import tir as T",
        "",
        "",
        "@T.prim_func",
        f"def jam{n}({', '.join(params)}):",
        f'    T.func_attr({{"global_symbol": "jam{n}", "tir.noalias": True}})',
    ]
    acc = "B"
    if form == "temp":
        lines.append(f'    Tm = T.alloc_buffer(({E},), "int32")')
        lines.append(f'    Tn = T.alloc_buffer(({E},), "int32")')
        acc = "Tm"
    lines.append(f"    for i, k0, k1 in T.grid({E}, {K0}, {K1}):")
    ind = "        "
    if vec:
        lines.append(ind + "for j in T.vectorized(4):")
        ind += "    "
    a = f"A[i, k0 * {K1} + k1]"
    if vec:
        a = f"A[i, (k0 * {K1} + k1 + j) % {K}]"
    if init == "peel":
        lines.append(ind + "if k0 == 0 and k1 == 0:")
        lines.append(ind + f"    {acc}[{idx}] = {rng.randint(-3, 3)}")
    elif init == "if_inner":
        lines.append(ind + "if k1 == 0:")
        lines.append(ind + f"    {acc}[{idx}] = {acc}[{idx}] + 1")
    extra = ""
    if form == "shift":
        extra = " + B[i + 1]"
    lines.append(ind + f"{acc}[{idx}] = {acc}[{idx}] * 3 + {a}{extra}")
    if form == "two":
        lines.append(ind + f"D[i] = D[i] * 5 - {a}")
    if form == "temp":
        # a second temporary reduced from the first: both live in one loop
        lines.append(f"    for i, k in T.grid({E}, {K}):")
        lines.append("        if k == 0:")
        lines.append("            Tn[i] = 1")
        lines.append(f"        Tn[i] = Tn[i] * 3 + Tm[(i + 1) % {E}] + A[i, k]")
        lines.append(f"    for i in range({E}):")
        lines.append("        B[i] = Tm[i]")
        lines.append("        D[i] = Tn[i]")
    return "\n".join(head + lines) + "\n"


def main():
    harness, tirc = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rng = random.Random(seed)
    fails = jammed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(count):
            path = os.path.join(tmp, f"jam{n}.tir")
            with open(path, "w") as f:
                f.write(program(rng, n))
            c = subprocess.run([tirc, "--emit=c", path], capture_output=True, text=True)
            if c.returncode != 0:
                fails += 1
                print(f"FAIL jam{n}: tirc --emit=c: {c.stderr.strip()[:400]}")
                print(open(path).read())
                continue
            jammed += "jammed into" in c.stdout
            r = subprocess.run([os.path.join(HERE, "c_vs_exec.sh"), harness, path, "gcc"], capture_output=True,
                               text=True)
            if r.returncode != 0:
                fails += 1
                print(f"FAIL jam{n}: {r.stdout.strip()[:600]}")
                print(open(path).read())
    print(f"jam_stress: {count - fails} of {count} agree with the interpreter, {jammed} jammed")
    if jammed * 4 < count:
        print("jam_stress: FAIL: too few programs were jammed to test the transformation")
        return 1
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
