"""tvm_source.py TIRC - TIR from TVM's own code base, beyond tvm.topi:

  llm:       the kernels of tvm.relax.frontend.nn.llm (paged-KV attention
             prefill and decode, ragged prefill, MLA, tree attention, state
             merging, KV-cache page copies), instantiated at two dtypes
             (in make test the GPU kernels at float16, the CPU ones at
             float32) and the configurations below, and relax's generic GPU kernels
             (multinomial sampling, 2-D and 3-D cumsum), as TVM prints them
             (mod.script());
  legalize:  the PrimFuncs relax.transform.LegalizeOps writes for a relax
             function of 26 ops (softmax, norms, scans, sorts, matmul, ...);
  docstring: every TVMScript example in the docstrings of the installed
             package (tvm.s_tir.Schedule's before/after programs and the
             rest), as their authors wrote them.

For each program that TVM itself reads: tirc reads it (`tirc --passes=`)
and TVM's reading of tirc's print is structurally equal to TVM's reading of
the program, or tirc refuses it with an error listed in REFUSED below.
Then each llm kernel goes on to --emit=c (CPU kernels, float32: built with
gcc -Werror) or --emit=cuda (GPU kernels), where a refusal must be a
`file:line:col: error:`; the counts are printed.  A crash, a round-trip
difference, an unlisted refusal or a listed one that no longer happens
fails the test.
"""
import ast
import importlib
import os
import re
import subprocess
import sys
import tempfile
import textwrap

import lazy_stack  # noqa: F401  (before from_source is bound)
import tvm
from tvm.script import from_source
from tvm.target import Target

# docstring example (file stem, function name) -> the words tirc's error holds
# (none now: the Relax module of relax/transform/transform's docstring is read,
# its @R.function kept as text)
REFUSED = {}


def llm_cases(full):
    dk = importlib.import_module("tvm.relax.frontend.nn.llm._decode_kernels")
    pk = importlib.import_module("tvm.relax.frontend.nn.llm._prefill_kernels")
    pg = importlib.import_module("tvm.relax.frontend.nn.llm._page_kernels")
    ta = importlib.import_module("tvm.relax.frontend.nn.llm.tree_attn")
    cuda = Target("cuda")
    rope = {}
    cases = []

    def add(name, fn, *a, **k):
        # make test: the GPU kernels at float16, the CPU ones (built by gcc,
        # which has no float16) at float32; make corpus-full: both at both
        gpu = any(x is cuda for x in a)
        if full or name.endswith("_float16") == gpu or not name.endswith(("_float16", "_float32")):
            cases.append((name, fn, a, k))

    for dt in ["float16", "float32"]:
        add("decode_cpu_" + dt, dk._attention_decode_cpu, 8, 32, 128, dt, False, rope)
        add("decode_cpu_sw_" + dt, dk._attention_decode_cpu, 8, 32, 128, dt, True, rope)
        add("decode_" + dt, dk._attention_decode, 8, 32, 128, dt, False, rope, cuda)
        add("decode_sw_" + dt, dk._attention_decode, 8, 32, 128, dt, True, rope, cuda)
        add("merge_cpu_" + dt, dk._merge_state_inplace_cpu, dt)
        add("merge_" + dt, dk._merge_state_inplace, 32, 128, dt, cuda)
        add("prefill_cpu_" + dt, pk._attention_prefill_cpu, 8, 32, 128, dt, False, rope)
        add("prefill_" + dt, pk._attention_prefill, 8, 32, 128, dt, False, rope, cuda)
        add("prefill_sw_" + dt, pk._attention_prefill, 8, 32, 128, dt, True, rope, cuda)
        add("seq_prefill_" + dt, pk._attention_sequence_prefill, 8, 32, 128, dt, cuda)
        add("seq_prefill_causal_" + dt, pk._attention_sequence_prefill, 8, 32, 128, dt, cuda, causal=1)
        add("seq_prefill_mask_" + dt, pk._attention_sequence_prefill_with_mask, 8, 32, 128, dt, cuda)
        add("ragged_cpu_" + dt, pk._attention_prefill_ragged_cpu, 8, 32, 128, 128, dt, rope)
        add("ragged_" + dt, pk._attention_prefill_ragged, 8, 32, 128, 128, dt, rope, cuda)
        add("mla_" + dt, pk._attention_prefill_mla, 32, 512, 64, dt, False, cuda)
        add("transpose_append_" + dt, pg._kv_cache_transpose_append, 8, 128, dt)
        add("transpose_append_mla_" + dt, pg._kv_cache_transpose_append_mla, 576, dt)
        add("debug_get_kv_" + dt, pg._kv_cache_debug_get_kv, 4, 8, 128, dt)
        add("debug_get_kv_mla_" + dt, pg._kv_cache_debug_get_kv_mla, 4, 576, dt)
        add("copy_page_" + dt, pg._copy_single_page, 8, 16, 128, dt, cuda)
        add("copy_page_mla_" + dt, pg._copy_single_page_mla, 16, 576, dt, cuda)
        add("copy_page_cpu_" + dt, pg._copy_single_page_cpu, 8, 16, 128, dt)
        add("compact_copy_" + dt, pg._compact_kv_copy, 8, 128, dt, cuda)
        add("compact_copy_cpu_" + dt, pg._compact_kv_copy_cpu, 8, 128, dt)
        add("tree_attn_cpu_" + dt, ta.tree_attn_cpu, 8, 32, 128, dt, rope)
        add("tree_attn_" + dt, ta.tree_attn, 8, 32, 128, dt, rope, cuda)
        add("tree_attn_paged_cpu_" + dt, ta.tree_attn_with_paged_kv_cache_cpu, 8, 32, 128, dt, rope)
        add("tree_attn_paged_" + dt, ta.tree_attn_with_paged_kv_cache, 8, 32, 128, dt, rope, cuda)
    # relax's generic GPU kernels (the sampling and scan ops' TIR)
    from tvm.relax.backend.gpu_generic import cumsum, sampling
    add("multinomial_float32", sampling.gpu_multinomial_from_uniform)
    for dt in ["float32", "int32"]:
        add("cumsum2d_" + dt, cumsum.gpu_2d_continuous_cumsum, in_dtype=dt, out_dtype=dt)
        add("cumsum3d_" + dt, cumsum.gpu_3d_axis_1_cumsum, in_dtype=dt, out_dtype=dt)
    out = []
    for name, fn, a, k in cases:
        with cuda:
            f = fn(*a, **k)
        out.append(("llm", name, None, f.script()))
    return out


def legalize_cases():
    """the PrimFuncs relax.transform.LegalizeOps writes for a relax function
    of 26 ops (TIR that relax users get from TVM, static and symbolic)"""
    import numpy as np
    from tvm import relax
    from tvm.script import relax as R
    bb = relax.BlockBuilder()
    x = relax.Var("x", R.Tensor((4, 8), "float32"))
    y = relax.Var("y", R.Tensor((4, 8), "float32"))
    z = relax.Var("z", R.Tensor((tvm.tirx.Var("n", "int64"), 8), "float32"))
    idx = relax.Var("i", R.Tensor((3,), "int64"))
    ones = relax.const(tvm.runtime.tensor(np.ones(8, "float32")))
    zeros = relax.const(tvm.runtime.tensor(np.zeros(8, "float32")))
    op = relax.op
    with bb.function("main", [x, y, z, idx]):
        with bb.dataflow():
            outs = [bb.emit(e) for e in [
                op.add(x, y), op.nn.softmax(x), op.sum(x, axis=[1]), op.argmax(x, axis=1), op.take(x, idx, axis=1),
                op.nn.layer_norm(x, ones, zeros, [1]), op.cumsum(x, axis=1), op.sort(x, axis=1),
                op.topk(x, 2, axis=1), op.nn.gelu(x), op.nn.silu(x), op.matmul(x, op.permute_dims(y)),
                op.nn.softmax(z), op.mean(z, axis=[0]), op.strided_slice(x, [1], [0], [4], [2]),
                op.where(op.greater(x, y), x, y), op.nn.rms_norm(x, ones, [1]), op.concat([x, y], axis=0),
                op.split(x, 2, axis=1), op.repeat(x, 2, axis=0), op.flip(x, axis=1), op.tril(x),
                op.one_hot(idx, relax.prim_value(1.0), relax.prim_value(0.0), 4, -1), op.variance(x, axis=[1]),
                op.cumprod(x, axis=0), op.nn.log_softmax(x)]]
            gv = bb.emit_output(relax.Tuple(outs))
        bb.emit_func_output(gv)
    mod = relax.transform.LegalizeOps()(bb.get())
    return [("legalize", gv.name_hint, None, tvm.IRModule({"main": f}).script())
            for gv, f in mod.functions.items() if isinstance(f, tvm.tirx.PrimFunc)]


def docstring_cases():
    """(kind, name, key, text): each @T.prim_func / @I.ir_module example of
    a docstring, dedented, from its decorator to the end of its body"""
    root = os.path.dirname(tvm.__file__)
    out = []
    for dp, _dn, fns in sorted(os.walk(root)):
        for fn in sorted(fns):
            if not fn.endswith(".py"):
                continue
            path = os.path.join(dp, fn)
            try:
                tree = ast.parse(open(path, encoding="utf-8").read())
            except (SyntaxError, UnicodeDecodeError):
                continue
            stem = os.path.relpath(path, root)[:-3]
            for node in ast.walk(tree):
                if not (isinstance(node, ast.Constant) and isinstance(node.value, str) and "@T.prim_func" in node.value):
                    continue
                lines = node.value.split("\n")
                i = 0
                while i < len(lines):
                    s = lines[i].strip()
                    if not (s.startswith("@T.prim_func") or s.startswith("@I.ir_module")
                            or s.startswith("@tvm.script.ir_module")):
                        i += 1
                        continue
                    ind = len(lines[i]) - len(lines[i].lstrip())
                    j = i + 1
                    while j < len(lines):
                        lj = lines[j]
                        if not lj.strip():
                            j += 1
                            continue
                        indj = len(lj) - len(lj.lstrip())
                        head = lj.strip()
                        if indj <= ind and head[0] in ")]}":
                            j += 1
                            continue
                        prev = lines[j - 1].strip()
                        if indj <= ind and not (head.startswith(("def ", "class ", "@")) and prev.startswith("@")):
                            break
                        j += 1
                    text = textwrap.dedent("\n".join(lines[i:j])).rstrip() + "\n"
                    m = re.search(r"(?:def|class)\s+(\w+)", text)
                    out.append(("docstring", "%s:%s" % (stem, m.group(1) if m else i), (stem, m.group(1) if m else ""),
                                text))
                    i = j
    return out


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def main():
    tirc = os.path.abspath(sys.argv[1])
    full = "--full" in sys.argv[2:]  # and the emitted CUDA built by nvcc (make corpus-full)
    cases = llm_cases(full) + legalize_cases() + docstring_cases()
    counts = {}
    fail = 0
    emitted = {"c": 0, "cuda": 0}
    refused_emit = {}

    def bump(kind, what):
        counts[(kind, what)] = counts.get((kind, what), 0) + 1

    with tempfile.TemporaryDirectory() as d:
        for n, (kind, name, key, text) in enumerate(cases):
            try:
                ref = from_source(text)
            except Exception:  # noqa: BLE001 (a fragment, or text TVM does not read back)
                bump(kind, "TVM cannot read")
                continue
            src = os.path.join(d, "p%d.tir" % n)
            out = os.path.join(d, "p%d.out.tir" % n)
            with open(src, "w") as fh:
                fh.write(text)
            p = run([tirc, "--passes=", src, "-o", out])
            want = REFUSED.get(key)
            if p.returncode != 0:
                errs = [l for l in p.stderr.splitlines() if ": error: " in l]
                if p.returncode == 1 and want and errs and all(want in e for e in errs):
                    bump(kind, "refused as listed")
                else:
                    fail += 1
                    print("FAIL tvm_source %s %s: tirc exit %d: %s" % (kind, name, p.returncode,
                                                                    (errs or p.stderr.splitlines() or [""])[0]))
                continue
            if want:
                fail += 1
                print("FAIL tvm_source %s %s: read, but listed as refused (update REFUSED)" % (kind, name))
                continue
            try:
                tvm.ir.assert_structural_equal(ref, from_source(open(out).read()), map_free_vars=True)
                bump(kind, "equal")
            except Exception as e:  # noqa: BLE001
                fail += 1
                print("FAIL tvm_source %s %s: %s" % (kind, name, [l for l in str(e).splitlines() if l.strip()][0][:200]))
                continue
            if kind != "llm":
                continue
            gpu = "T.thread_binding" in text or "T.launch_thread" in text
            if not gpu and "float16" in name:
                continue  # C11 has no portable float16 (refused by name; --emit=cuda has it)
            target = "cuda" if gpu else "c"
            code = os.path.join(d, "p%d.%s" % (n, "cu" if gpu else "c"))
            p = run([tirc, "--emit=" + target, src, "-o", code])
            if p.returncode == 0 and not gpu:
                g = run(["gcc", "-std=c11", "-O1", "-Wall", "-Werror", "-c", code, "-o", code + ".o"])
                if g.returncode != 0:
                    fail += 1
                    print("FAIL tvm_source llm %s: its C does not build: %s" % (name, g.stderr[:300]))
                    continue
            if p.returncode == 0 and gpu and full:
                nv = run(["nvcc", "-arch=sm_80", "-Werror", "all-warnings", "-c", code, "-o", code + ".o"])
                if nv.returncode != 0:
                    fail += 1
                    print("FAIL tvm_source llm %s: nvcc: %s" % (name, nv.stderr[:300]))
                    continue
            if p.returncode == 0:
                emitted[target] += 1
                continue
            errs = [l for l in p.stderr.splitlines() if re.search(r":\d+:\d+: error: ", l)]
            if p.returncode != 1 or not errs:
                fail += 1
                print("FAIL tvm_source llm %s: --emit=%s exit %d without a located error: %s" %
                      (name, target, p.returncode, p.stderr[:300]))
                continue
            why = re.sub(r"^.*?error: ", "", errs[0])
            why = re.sub(r"\b(line|at) \d+", r"\1 N", why)[:110]
            refused_emit.setdefault(why, []).append(name)
    for kind in ("llm", "legalize", "docstring"):
        c = {w: v for (k, w), v in counts.items() if k == kind}
        print("tvm_source: %s: %d programs: %d round-trip equal, %d refused as listed, %d that TVM cannot read" %
              (kind, sum(c.values()), c.get("equal", 0), c.get("refused as listed", 0), c.get("TVM cannot read", 0)))
    print("tvm_source: llm kernels emitted: %d as C (built by gcc), %d as CUDA%s; refused:" %
          (emitted["c"], emitted["cuda"], " (built by nvcc)" if full else ""))
    for why, names in sorted(refused_emit.items()):
        print("  %d: %s (%s)" % (len(names), why, ", ".join(names)))
    print("tvm_source: %d failed" % fail)
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
