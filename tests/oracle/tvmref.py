"""tvmref.py - read TVMScript with apache-tvm (0.27, the `tirx` dialect) as
the reference for tirc's tests.  Never a runtime dependency of libtir/tirc.

- Accepts both spellings: the old `from tvm.script import tir as T` (T.block,
  block-level T.alloc_buffer) is translated to the tirx one (T.sblock,
  T.sblock_alloc_buffer, @T.prim_func(s_tir=True)).
- `T.slice_tensor(...)` is not a TVM op: it is read as
  T.call_extern("handle", "slice_tensor", ...), the same for both sides of a
  comparison.
"""
import re
import sys

try:
    import tvm  # noqa: F401
    from tvm.script import tirx as _T
    HAVE_TVM = True
    TVM_ERROR = None
except Exception as e:  # pragma: no cover
    HAVE_TVM = False
    TVM_ERROR = repr(e)


class _TShim:
    def __getattr__(self, name):
        return getattr(_T, name)

    @staticmethod
    def slice_tensor(*args):
        return _T.call_extern("handle", "slice_tensor", *args)


def to_tirx(src):
    """Old `tir` spelling to `tirx`; tirx text is returned unchanged."""
    if re.search(r"^(# )?from tvm\.script import tir as T", src, re.M):
        src = re.sub(r"\bT\.block\(", "T.sblock(", src)
        src = re.sub(r"\bT\.block_attr\(", "T.sblock_attr(", src)
        src = re.sub(r"\bT\.alloc_buffer\(", "T.sblock_alloc_buffer(", src)
        src = re.sub(r"@T\.prim_func\b(?!\()", "@T.prim_func(s_tir=True)", src)
        src = re.sub(r"@T\.prim_func\(\s*\)", "@T.prim_func(s_tir=True)", src)
        # @T.prim_func(private=True), (check_well_formed=False): s_tir too
        src = re.sub(r"@T\.prim_func\((?![^)]*\bs_tir\b)(?=[^)]*\w)", "@T.prim_func(s_tir=True, ", src)
    return src


def read_python(src):
    """text with @T.macro definitions: TVM's from_source does not read them
    (a macro is a Python object), so the text runs as the Python module it
    is (TVMScript reads a prim_func from its module's source file) and its
    one IRModule, or its one PrimFunc, is the result"""
    import importlib.util
    import os
    import tempfile
    src = re.sub(r"^# (from tvm\.script import .*)$", r"\1", src, flags=re.M)
    # TVM 0.27 has no tvm.script.tir module: the old spelling's import is tirx's
    src = re.sub(r"^from tvm\.script import tir as T$", "from tvm.script import tirx as T", src, flags=re.M)
    fd, path = tempfile.mkstemp(suffix=".py")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(src)
        spec = importlib.util.spec_from_file_location("tvmref_macro_src", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod  # inspect finds an @I.ir_module class's source through it
        spec.loader.exec_module(mod)
    finally:
        sys.modules.pop("tvmref_macro_src", None)
        os.unlink(path)
    objs = [v for v in vars(mod).values() if isinstance(v, (tvm.IRModule, tvm.tirx.PrimFunc))]
    if len(objs) != 1:
        raise ValueError("tvmref.read_python: %d IRModules/PrimFuncs in the text, not one" % len(objs))
    return objs[0]


def dedent_like_tvm(src):
    """a function copied out of a class or a test, every line indented as
    its first: TVM's parser takes the first line's indentation from every
    line of a decorated function's source (tvm.script's Source)"""
    lines = src.split("\n")
    first = next((l for l in lines if l.strip() and not l.lstrip().startswith("#")), "")
    k = len(first) - len(first.lstrip(" \t"))
    if not k:
        return src
    out = []
    for line in lines:
        if line.startswith(first[:k]):
            out.append(line[k:])
        elif not line.strip() or line.lstrip().startswith("#"):
            out.append(line.lstrip(" \t"))
        else:
            return src
    return "\n".join(out)


# a module-level constant (`N = 128`, `M, K = 16, 8`), which only the text
# run as a Python module binds; TypeVar declarations are read by from_source
_MODULE_CONST = re.compile(r"^[A-Za-z_]\w*(\s*,\s*[A-Za-z_]\w*)*\s*=(?!=)(?!\s*(typing\.)?TypeVar\()", re.M)


def _python_around(src):
    """module-level Python beside decorated functions: `import tvm`, the
    main guard, an annotated constant, a def with no decorator"""
    if not re.search(r"^@", src, re.M):
        return False
    if re.search(r"^(import tvm|if __name__|[A-Za-z_]\w*: [^=\n]+ = )", src, re.M):
        return True
    prev = ""
    for line in src.splitlines():
        if line.startswith("def ") and not prev.startswith("@"):
            return True
        if line.strip() and not line.startswith("#"):
            prev = line
    return False


def read(src, check_well_formed=True):
    """TVMScript text -> tvm PrimFunc or IRModule.  check_well_formed=False
    for what TVM's LowerCrossThreadReduction writes, which TVM's own
    well-formedness check refuses (a thread loop var used in the new
    cross-thread block)."""
    src = dedent_like_tvm(src)
    # an undecorated def, as TVM's CompareBeforeAfter tests write them: its
    # harness reads "@T.prim_func\n" + the function's source
    if not re.search(r"^@", src, re.M):
        src = re.sub(r"^(def \w+\()", r"@T.prim_func\n\1", src, flags=re.M)
    if re.search(r"^@T\.macro\b", src, re.M) or _MODULE_CONST.search(src):
        return read_python(to_tirx(src))
    if _python_around(src):
        # Python around the function (an import, a helper def, an annotated
        # constant, the main guard): TVM reads it as the module it is
        return read_python(to_tirx(src))
    src = to_tirx(src)
    src = re.sub(r"^from tvm\.script import .*$", "", src, flags=re.M)
    from tvm.script import ir as I  # noqa: E741
    # the shim only where it is needed: TVM's parser treats its own T module
    # specially (T.int32x2 annotations, the T.cuda.* namespaces)
    from typing import TypeVar  # TVM 0.27 prints `n = TypeVar("n")` (its import commented)
    ev = {"T": _TShim() if "slice_tensor" in src else _T, "I": I, "TypeVar": TypeVar}
    if re.search(r"^\s*@R\.function", src, re.M):  # a module with Relax functions beside its TIR ones
        from tvm.script import relax as R
        ev["R"] = R
    return tvm.script.from_source(src, extra_vars=ev, check_well_formed=check_well_formed)


def as_module(obj):
    if isinstance(obj, tvm.IRModule):
        return obj
    return tvm.IRModule({"main": obj})


def equal(a, b):
    """structural equality of two PrimFuncs or IRModules (map_free_vars)"""
    try:
        tvm.ir.assert_structural_equal(a, b, map_free_vars=True)
        return True, ""
    except Exception as e:  # ValueError with the first difference
        return False, str(e)


if __name__ == "__main__":
    print(read(open(sys.argv[1]).read()).script())
