"""lazy_stack.py - imported by the scripts that read many texts with
tvm.script.from_source, before they bind it: two costs of Python's inspect
that TVM's script parser pays, cut without changing what TVM reads.

TVM's decorators (T.prim_func, I.ir_module, R.function) call
inspect.stack() when they are called: from_source calls them for every
function it reads (to learn the decorator's dispatch token), and TVM's own
modules (its tensor intrinsics, its tests) as they are imported.
inspect.stack() builds a FrameInfo, with the source line, for every frame
of a deep stack, and inspect.getmodule, asked of each frame, scans every
module in sys.modules where the frame's file is no module's (the import
machinery's frames, a script, an exec'd string).  Between them they were
about half of the corpus scripts' time (tensor_intrin.py: 46 s, now 14 s).

- While from_source reads a text, inspect.stack() keeps the frame it was
  called from and builds the FrameInfo list only when it is first looked at
  (len, index, slice, iteration).  The stack a decorator captures is only
  looked at when the decorator is applied to a Python function, which
  from_source, reading a text, never does.  Outside it (a decorator applied
  as Python runs, where TVM looks at the stack after the call that took it
  has returned) the stack is the eager one.
- inspect.getmodule remembers that no module has a file, for as long as
  sys.modules has as many entries.

TVM's readings are the same: the corpus scripts compare TVM's reading of
every text with tirc's, and print the same counts with and without this."""
import inspect
import sys

_eager = inspect.stack


class _LazyStack:
    def __init__(self, frame, context):
        self._frame, self._context, self._list = frame, context, None

    def _get(self):
        if self._list is None:
            self._list = inspect.getouterframes(self._frame, self._context)
            self._frame = None
        return self._list

    def __len__(self):
        return len(self._get())

    def __getitem__(self, k):
        return self._get()[k]

    def __iter__(self):
        return iter(self._get())

    def __bool__(self):
        return bool(self._get())


_IN = [0]  # from_source calls running


def _stack(context=1):
    if _IN[0]:
        return _LazyStack(sys._getframe(1), context)
    return inspect.getouterframes(sys._getframe(1), context)  # _eager's own body


def _from_source(*args, **kwargs):
    _IN[0] += 1
    try:
        return _read(*args, **kwargs)
    finally:
        _IN[0] -= 1


_getmodule = inspect.getmodule
_ABSENT = {}  # file -> len(sys.modules) when no module was found for it


def _getmodule_memo(obj, _filename=None):
    """inspect.getmodule, which the stack's FrameInfos ask of every frame:
    for a frame (no __name__ or __module__) of a file that is no module's
    (<frozen importlib._bootstrap>, a script, an exec'd string) it scans
    every module in sys.modules, each time.  The answer, None, stays until
    a module is loaded, so it is kept for as long as sys.modules has as
    many entries."""
    if _filename is None or hasattr(obj, "__module__") or hasattr(obj, "__name__"):
        return _getmodule(obj, _filename)
    n = len(sys.modules)
    if _ABSENT.get(_filename) == n:
        return None
    m = _getmodule(obj, _filename)
    if m is None:
        _ABSENT[_filename] = n
    return m


if inspect.stack is _eager:
    import tvm.script
    inspect.getmodule = _getmodule_memo
    _read = tvm.script.from_source
    inspect.stack = _stack
    tvm.script.from_source = _from_source
