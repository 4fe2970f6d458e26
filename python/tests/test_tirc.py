"""Tests of the Python package: transform, compile, errors, and the TVM pass
inside a TVM pipeline (built with tvm.compile and checked with numpy).
Run by `make test` with TIRC_LIB pointing at build/lib/libtir.so."""
import os

import pytest

import tirc

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RELU = open(os.path.join(ROOT, "examples", "relu.tir")).read()


def test_transform_seed():
    out = tirc.transform(RELU, passes="compact,lower_match")
    assert 'relu_a_shared = T.sblock_alloc_buffer((2, 2, 64, 64), "int8", scope="shared")' in out
    assert "offset=bx * 2097152 + by * 8192 + tx * 512 + ty * 2" in out
    assert out.startswith("# from tvm.script import tirx as T")


def test_compile_c_and_cuda():
    c = tirc.compile(RELU, target="c")
    assert "int32_t relu(int8_t *restrict relu_a, int8_t *restrict compute)" in c
    assert "int32_t relu_packed(const void *args, void *workspace)" in c
    assert 'extern "C" __global__' in tirc.compile(RELU, target="cuda")
    assert "int32_t my_relu(" in tirc.compile(RELU, target="c", symbol="my_relu")
    assert '"packed_symbol": "relu_packed"' in tirc.compile(RELU, target="metadata")


def test_error_carries_diagnostics():
    bad = "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n    A[0] = T.exq(A[0])\n"
    with pytest.raises(tirc.Error) as e:
        tirc.transform(bad, passes="compact", filename="bad.tir")
    d = e.value.diagnostics[0]
    assert (d.file, d.line, d.col, d.severity) == ("bad.tir", 3, 12, "error")
    assert d.message == "unknown name 'T.exq'; did you mean 'T.exp'?"
    assert "bad.tir:3:12: error: unknown name 'T.exq'" in str(e.value)
    with pytest.raises(tirc.Error) as e:
        tirc.transform(RELU, passes="compct")
    assert "did you mean 'compact'" in e.value.diagnostics[0].message
    with pytest.raises(tirc.Error):
        tirc.compile(RELU, target="llvm")


def test_tvm_pass_in_a_pipeline():
    tvm = pytest.importorskip("tvm")
    import numpy as np
    from tvm import te
    import tvm.s_tir as st
    import tirc.tvm

    A = te.placeholder((64, 64), name="A")
    B = te.compute((64, 64), lambda i, j: A[i, j] * 2.0, name="B")
    C = te.compute((64, 64), lambda i, j: B[i, j] + 1.0, name="C")
    sch = st.Schedule(te.create_prim_func([A, C]))
    sch.compute_at(sch.get_sblock("B"), sch.get_loops(sch.get_sblock("C"))[0])
    mod = sch.mod
    # as in TVM, compaction runs on opaque blocks (TVM refuses the others)
    seq = tvm.transform.Sequential([tirc.tvm.Pass("plan_alloc,to_opaque,compact,lower_match")])
    out = seq(mod)
    text = out.script()
    assert "T.sblock_alloc_buffer((1, 64))" in text, text  # B compacted to the row it needs
    lib = tvm.compile(out, target="llvm")
    a = np.random.default_rng(0).standard_normal((64, 64)).astype("float32")
    c = np.zeros((64, 64), "float32")
    dev = tvm.cpu()
    ta, tc = tvm.runtime.tensor(a, dev), tvm.runtime.tensor(c, dev)
    lib(ta, tc)
    np.testing.assert_allclose(tc.numpy(), a * 2.0 + 1.0, rtol=1e-6)


def test_tvm_text_both_ways_verbatim():
    """TVM's mod.script() goes into tirc as printed, and tirc's output goes
    into tvm.script.from_source as printed: no edits either way."""
    tvm = pytest.importorskip("tvm")
    from tvm import te

    A = te.placeholder((16, 32), name="A")
    k = te.reduce_axis((0, 32), name="k")
    B = te.compute((16,), lambda i: te.sum(A[i, k] * 2.0, axis=k), name="B")
    mod = tvm.IRModule({"main": te.create_prim_func([A, B])})
    printed = mod.script()
    assert printed.startswith("# from tvm.script import ir as I")
    back = tvm.script.from_source(tirc.transform(printed, passes=""))
    tvm.ir.assert_structural_equal(back, mod)
    chain = open(os.path.join(ROOT, "examples", "chain.tir")).read()
    out = tirc.transform(chain, passes="compact,lower_match")
    assert out.startswith("# from tvm.script import tirx as T")
    tvm.script.from_source(out)  # as printed


def test_library_is_tirc_lib():
    tirc.transform(RELU, passes="")
    assert tirc.library_path == os.environ["TIRC_LIB"]


def test_warnings_are_python_warnings():
    chain = open(os.path.join(ROOT, "examples", "chain.tir")).read()
    with pytest.warns(tirc.Warning, match=r"function 'chain' binds no thread here: .* loop 'i' \(extent 1024\) has no dependence"):
        out = tirc.compile(chain, target="cuda")
    assert "__global__" in out


def test_error_text_reads_back():
    e = tirc.Error("f.tir:3:12: error: unknown name 'T.exq'\n      A[0] = T.exq(A[0])\n             ^\n"
                   "f.tir: warning: something")
    assert [(d.file, d.line, d.col, d.severity) for d in e.diagnostics] == [("f.tir", 3, 12, "error"),
                                                                           ("f.tir", 0, 0, "warning")]


def test_tvm_pass_errors_are_tirc_errors():
    tvm = pytest.importorskip("tvm")
    import tirc.tvm
    from tvm.script import tirx as T

    with pytest.raises(tirc.Error) as e:  # checked when the pass is made
        tirc.tvm.Pass("compact,lower_mach")
    assert "did you mean 'lower_match'" in e.value.diagnostics[0].message

    @T.prim_func(s_tir=True)
    def g(A: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("x"):
                vi = T.axis.spatial(4, i)
                T.reads()
                T.writes(A[vi])
                v = T.match_buffer(A[vi], (1,))
                v[0] = T.float32(1)

    # refused inside the pipeline: it comes out of TVM as a tirc.Error
    with pytest.raises(tirc.Error) as e:
        tvm.transform.Sequential([tirc.tvm.Pass("to_opaque,lower_opaque")])(tvm.IRModule({"g": g}))
    d = e.value.diagnostics[0]
    assert d.file == "g" and d.severity == "error" and d.line > 0
    assert d.message == "block 'x' still has match_buffers: run LowerMatchBuffer (lower_match) before LowerOpaqueBlock"


def test_docs_python_md_examples_run():
    """The TVM pipeline and round-trip examples of docs/python.md run as shown."""
    pytest.importorskip("tvm")
    import re

    doc = open(os.path.join(ROOT, "docs", "python.md")).read()
    blocks = re.findall(r"```python\n(.*?)```", doc, flags=re.S)
    pipeline = [b for b in blocks if "tirc.tvm.Pass(" in b]
    assert len(pipeline) == 1
    env = {}
    exec(compile(pipeline[0], "docs/python.md", "exec"), env)  # noqa: S102 (our own doc)
    assert "T.sblock_alloc_buffer((1, 64))" in env["mod"].script()
    both = [b for b in blocks if "assert_structural_equal" in b]
    assert len(both) == 1
    exec(compile(both[0], "docs/python.md", "exec"), env)  # noqa: S102
