"""tirc: TVMScript TIR passes and C/CUDA code generation, from Python.

A thin ctypes layer over libtir's text-in, text-out entry point
(`tir_transform_text`, include/tir/driver.h).  The library is $TIRC_LIB
when that is set, else the one next to this package (tirc/libtir.so*),
else the one on the library path (libtir.so.0, as `make install` puts it).
"""
import ctypes
import ctypes.util
import glob
import os
import re
import warnings

__all__ = ["transform", "compile", "check_passes", "Error", "Diagnostic", "Warning", "library_path"]
__version__ = "0.1.0"


class _Span(ctypes.Structure):
    _fields_ = [("line", ctypes.c_int), ("col", ctypes.c_int)]


class _Entry(ctypes.Structure):
    _fields_ = [("sev", ctypes.c_int), ("span", _Span), ("msg", ctypes.c_char_p)]


class _Diag(ctypes.Structure):
    _fields_ = [("items", ctypes.POINTER(_Entry)), ("n", ctypes.c_int), ("cap", ctypes.c_int),
                ("nerrors", ctypes.c_int)]


class Diagnostic:
    """One diagnostic: file, line and col (1-based; 0 when unknown), severity
    ("error", "warning", "note") and message."""

    def __init__(self, file, line, col, severity, message):
        self.file, self.line, self.col, self.severity, self.message = file, line, col, severity, message

    def __str__(self):
        where = f"{self.file}:{self.line}:{self.col}" if self.line else self.file
        return f"{where}: {self.severity}: {self.message}"

    __repr__ = __str__


_HEAD = re.compile(r"^(.*?):(?:(\d+):(\d+):)? (error|warning|note): (.*)$")


def _parse_diagnostics(text):
    """The diagnostics of tirc's rendering: each `file:line:col: severity:
    message` line (the source lines and carets under them skipped)."""
    out = []
    for line in text.splitlines():
        m = _HEAD.match(line)
        if m:
            out.append(Diagnostic(m.group(1), int(m.group(2) or 0), int(m.group(3) or 0), m.group(4), m.group(5)))
    return out


class Error(Exception):
    """tirc refused the input; .diagnostics holds every Diagnostic, and
    str(error) is tirc's own rendering (with source lines and carets).
    Raised inside a TVM pipeline (tirc.tvm.Pass), it comes out of TVM as a
    tirc.Error too, its diagnostics read back from the rendering."""

    def __init__(self, text, diagnostics=None):
        super().__init__(text)
        self.diagnostics = _parse_diagnostics(text) if diagnostics is None else diagnostics


class Warning(UserWarning):  # noqa: A001 (tirc.Warning, as tirc.Error)
    """A warning tirc gave on input it accepted (issued with warnings.warn)."""


def _find_library():
    env = os.environ.get("TIRC_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for path in sorted(glob.glob(os.path.join(here, "libtir.so*"))):
        return path
    return ctypes.util.find_library("tir") or "libtir.so.0"


_lib = None
library_path = None


def _load():
    global _lib, library_path
    if _lib is None:
        library_path = _find_library()
        lib = ctypes.CDLL(library_path)
        lib.tir_transform_text.restype = ctypes.c_void_p
        lib.tir_transform_text.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_char_p,
                                           ctypes.c_char_p, ctypes.POINTER(_Diag)]
        lib.tir_diag_format.restype = ctypes.c_void_p
        lib.tir_diag_format.argtypes = [ctypes.POINTER(_Diag), ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t]
        lib.tir_diag_free.argtypes = [ctypes.POINTER(_Diag)]
        lib.tir_free.argtypes = [ctypes.c_void_p]
        lib.tir_pipeline_parse.restype = ctypes.c_void_p
        lib.tir_pipeline_parse.argtypes = [ctypes.c_char_p, ctypes.POINTER(_Diag)]
        lib.tir_pipeline_free.argtypes = [ctypes.c_void_p]
        _lib = lib
    return _lib


def _take(lib, ptr):
    s = ctypes.string_at(ptr).decode("utf-8")
    lib.tir_free(ptr)
    return s


_SEV = {0: "error", 1: "warning", 2: "note"}


def _run(text, passes, emit, symbol, filename):
    lib = _load()
    src = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    d = _Diag()
    out = lib.tir_transform_text(src, len(src), passes.encode() if passes is not None else None, emit.encode(),
                                 symbol.encode() if symbol else None, ctypes.byref(d))
    try:
        diags = [Diagnostic(filename, d.items[i].span.line, d.items[i].span.col, _SEV.get(d.items[i].sev, "error"),
                            d.items[i].msg.decode("utf-8", "replace")) for i in range(d.n)]
        if not out:
            msg = _take(lib, lib.tir_diag_format(ctypes.byref(d), filename.encode(), src, len(src)))
            raise Error(msg.rstrip("\n"), diags)
        for w in diags:
            warnings.warn(str(w), Warning, stacklevel=3)
        return _take(lib, out)
    finally:
        lib.tir_diag_free(ctypes.byref(d))


def check_passes(passes):
    """Raises tirc.Error unless `passes` is a pipeline tirc knows (names,
    aliases, named pipelines), with a "did you mean" for a misspelt name."""
    lib = _load()
    d = _Diag()
    try:
        p = lib.tir_pipeline_parse(passes.encode(), ctypes.byref(d))
        if not p:
            msgs = [d.items[i].msg.decode("utf-8", "replace") for i in range(d.n)]
            raise Error("\n".join("error: " + m for m in msgs),
                        [Diagnostic("<passes>", 0, 0, "error", m) for m in msgs])
        lib.tir_pipeline_free(p)
    finally:
        lib.tir_diag_free(ctypes.byref(d))


def transform(text, passes="compact,lower_match", filename="<input>"):
    """TVMScript in, TVMScript out, through the given passes (tirc's
    --passes: names, aliases or the 'default' pipeline)."""
    return _run(text, passes, "tir", None, filename)


def compile(text, target="c", passes=None, symbol=None, filename="<input>"):  # noqa: A001 (as tvm.compile)
    """TVMScript in, source out: target "c", "h", "cuda", or "metadata" /
    "metadata-cuda" (the AOT description, JSON).  passes=None runs the
    'default' pipeline."""
    return _run(text, passes, target, symbol, filename)
