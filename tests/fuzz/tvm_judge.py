"""tvm_judge.py - one text judged against TVM 0.27 as diff_tvm.py and
gen_tvm_style.py judge it: TVM's reading of the text (with the
decorator's globals, docs/syntax.md: not from_source's default, which
imports relax) against TVM's reading of tirc's print of it.

classify(text, proc) gives: crash (tirc ended other than 0, or 1 without
a file:line:col error), both-refuse, refused-tvm-reads-checked /
-unchecked (TVM reads it, with or only without its well-formedness
check), lenient (tirc reads what TVM refuses), out-unreadable (TVM
cannot read tirc's print), equal, DIFFER (a silent change) or
differ-unchecked."""
import contextlib
import io
import re
import typing

import tvm  # noqa: F401  (the oracle; callers judge each text in a fork)
import tvm_ffi
from tvm.script import tirx as T, ir as I
import lazy_stack  # noqa: F401  tests/corpus/ on sys.path
import tvm_text  # tests/corpus/ on sys.path

_EV = {"T": T, "I": I, "TypeVar": typing.TypeVar}


def tvm_read(text):
    """TVM's reading of text and whether its well-formedness check passed; (None, None) if it refuses"""
    for wf in (True, False):
        try:
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                return tvm.script.from_source(text, extra_vars=dict(_EV), check_well_formed=wf), wf
        except Exception:  # noqa: BLE001
            pass
    return None, None


def classify(text, r):
    """r: tirc's subprocess.CompletedProcess on text (None if it timed out)"""
    if r is None or r.returncode not in (0, 1) or (
            r.returncode == 1 and not re.search(r":\d+:\d+: error:", r.stderr)):
        return "crash"
    a, wf = tvm_read(text)
    if r.returncode == 1:
        return "both-refuse" if a is None else ("refused-tvm-reads-checked" if wf else "refused-tvm-reads-unchecked")
    if a is None:
        return "lenient"
    b, _ = tvm_read(r.stdout)
    if b is None:
        return "out-unreadable"
    x, y = tvm_text.as_pair(a, b)
    return "equal" if tvm_ffi.structural_equal(x, y, map_free_vars=True) else ("DIFFER" if wf else "differ-unchecked")


def judge_in_fork(text, r):
    """classify(text, r) in a child process: TVM's reader can segfault on
    an odd text ("tvm-crash"); an exception in it is "tvm-exception"."""
    import os
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        try:
            cat = classify(text, r)
        except Exception:  # noqa: BLE001
            cat = "tvm-exception"
        os.write(wfd, cat.encode())
        os._exit(0)
    os.close(wfd)
    data = b""
    while True:
        c = os.read(rfd, 100)
        if not c:
            break
        data += c
    os.close(rfd)
    os.waitpid(pid, 0)
    return data.decode() or "tvm-crash"
