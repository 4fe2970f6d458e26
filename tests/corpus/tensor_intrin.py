"""tensor_intrin.py TIRC - TVM's own hand-written TIR: every tensor intrinsic
that the installed apache-tvm registers (tvm.s_tir.tensor_intrin: CUDA
wmma/mma/ldmatrix, x86, Arm, ROCm, Metal, Hexagon, RISC-V), its description
and its implementation, as TVM prints them (mod.script()).

For each printed function that TVM itself reads back:
  - tirc reads it (tirc --passes= prints it again), and TVM's reading of
    tirc's output is structurally equal to TVM's reading of the function;
  - or tirc refuses it with errors (one per use of the construct) whose
    messages hold the reason listed for its construct in REFUSED below (target-specific intrinsics that are
    neither C nor CUDA).
A crash, a refusal not listed, a round-trip difference, or a listed refusal
that no longer happens (update the list) fails the test.  Prints the counts.
"""
import importlib
import os
import re
import subprocess
import sys
import tempfile

import lazy_stack  # noqa: F401  (before from_source is bound)
import tvm
from tvm.script import from_source

MODULES = ["cuda", "x86", "arm_cpu", "rocm", "metal", "hexagon", "riscv_cpu", "dot_product_common"]

# construct in the text -> the words tirc's error must hold
# (none since 2026-11-27's seventh session: the Metal simdgroup intrinsics are read)
REFUSED = {}


def capture():
    """(name, desc, impl) of every registered tensor intrinsic: the modules
    register at import, so register is wrapped and each module (re)loaded"""
    from tvm.s_tir import _tensor_intrin as ti
    got = []
    orig = ti.TensorIntrin.register

    def register(name, desc, impl, override=False):
        got.append((name, desc, impl))
        return orig(name, desc, impl, True)

    ti.TensorIntrin.register = staticmethod(register)
    try:
        for m in MODULES:
            full = "tvm.s_tir.tensor_intrin." + m
            try:
                if full in sys.modules:
                    importlib.reload(sys.modules[full])
                else:
                    importlib.import_module(full)
            except Exception:  # noqa: BLE001 (a module whose target TVM was built without)
                pass
    finally:
        ti.TensorIntrin.register = orig
    seen, out = set(), []
    for name, desc, impl in got:
        if name not in seen:
            seen.add(name)
            out.append((name, desc, impl))
    return out


def main():
    tirc = os.path.abspath(sys.argv[1])
    funcs = capture()
    counts = {"equal": 0, "refused as listed": 0, "TVM cannot read its own print": 0}
    fail = 0
    with tempfile.TemporaryDirectory() as d:
        for name, desc, impl in funcs:
            for part, f in (("desc", desc), ("impl", impl)):
                text = f.script()
                base = "%s__%s" % (re.sub(r"[^A-Za-z0-9_]", "_", name), part)
                try:
                    ref = from_source(text)
                except Exception:  # noqa: BLE001
                    counts["TVM cannot read its own print"] += 1
                    continue
                src = os.path.join(d, base + ".tir")
                out = os.path.join(d, base + ".out.tir")
                with open(src, "w") as fh:
                    fh.write(text)
                p = subprocess.run([tirc, "--passes=", src, "-o", out], capture_output=True, text=True, timeout=60)
                listed = [k for k in REFUSED if k in text]
                if p.returncode != 0:
                    errs = [l for l in p.stderr.splitlines() if ": error: " in l]
                    if p.returncode == 1 and errs and all(any(REFUSED[k] in e for k in listed) for e in errs):
                        counts["refused as listed"] += 1
                    else:
                        fail += 1
                        print("FAIL tensor_intrin %s: tirc exit %d: %s" % (base, p.returncode,
                                                                           (errs or p.stderr.splitlines() or [""])[0]))
                    continue
                if listed:
                    fail += 1
                    print("FAIL tensor_intrin %s: read, but listed as refused for %s (update REFUSED)" % (base, listed))
                    continue
                try:
                    tvm.ir.assert_structural_equal(ref, from_source(open(out).read()), map_free_vars=True)
                    counts["equal"] += 1
                except Exception as e:  # noqa: BLE001
                    fail += 1
                    print("FAIL tensor_intrin %s: %s" % (base, [l for l in str(e).splitlines() if l.strip()][0][:200]))
    total = sum(counts.values()) + fail
    print("tensor_intrin: %d functions of %d intrinsics: %d round-trip equal, %d refused as listed, "
          "%d that TVM cannot read back itself, %d failed" % (total, len(funcs), counts["equal"],
                                                              counts["refused as listed"],
                                                              counts["TVM cannot read its own print"], fail))
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
