"""tvm_text.py - TVM's reading of a TVMScript text, shared by the corpus
scripts (constructs.py, relax_sweep.py).  Import it after the script has
imported tvm.script's tirx (see constructs.py)."""
import contextlib
import io

import tvm


def tvm_read(text, extra_vars):
    """TVM's reading of text (well-formedness checked first, then not), or
    None where TVM cannot read it"""
    for wf in (True, False):
        try:
            with contextlib.redirect_stderr(io.StringIO()), contextlib.redirect_stdout(io.StringIO()):
                return tvm.script.from_source(text, extra_vars=dict(extra_vars), check_well_formed=wf)
        except Exception:  # noqa: BLE001
            pass
    return None


def as_pair(a, b):
    """two PrimFuncs as they are, else both as IRModules"""
    def mod(o):
        return o if isinstance(o, tvm.IRModule) else tvm.IRModule({"main": o})
    if isinstance(a, tvm.tirx.PrimFunc) and isinstance(b, tvm.tirx.PrimFunc):
        return a, b
    return mod(a), mod(b)
