"""tirc inside TVM: tirc.tvm.Pass("compact,lower_match") is a
tvm.transform.Pass that runs tirc's passes on every PrimFunc of an IRModule
(through TVMScript text: TVM prints each function, tirc transforms it, TVM
reads the result back), usable in tvm.transform.Sequential beside TVM's own
passes."""
import tvm

from . import Error
from . import check_passes as _check_passes
from . import transform as _transform

# a tirc.Error raised inside a pass comes out of TVM's pipeline as a tirc.Error
# (TVM's FFI rebuilds a registered Python exception from its message)
try:
    import tvm_ffi

    tvm_ffi.register_error("tirc.Error", Error)
except (ImportError, AttributeError):  # an older TVM: the error arrives as TVM's own
    pass


def Pass(passes, opt_level=0, name=None):  # noqa: N802 (TVM's spelling)
    """A module pass that applies tirc's `passes` to each PrimFunc.  The
    pass list is checked here (tirc.Error on an unknown name); an input tirc
    refuses raises tirc.Error when the pipeline runs."""
    _check_passes(passes)

    def run(mod, _ctx):
        updates = {}
        for gv, func in mod.functions.items():
            if not isinstance(func, tvm.tirx.PrimFunc):
                continue
            text = _transform(func.script(), passes=passes, filename=gv.name_hint)
            new = tvm.script.from_source(text)
            if isinstance(new, tvm.IRModule):
                new = list(new.functions.values())[0]
            updates[gv] = new
        for gv, func in updates.items():
            mod[gv] = func
        return mod

    return tvm.transform.module_pass(run, opt_level=opt_level, name=name or f"tirc({passes})")
