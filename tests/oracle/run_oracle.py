"""run_oracle.py - check tirc's printed TVMScript against apache-tvm.

    python3 tests/oracle/run_oracle.py build/bin/tirc

For every tests/passes/**/NAME.tir with NAME.expected beside it whose
`# RUN:` flags hold no --emit=c/--emit=cuda:

- pure round trip (no --passes): TVM's reading of `tirc NAME.tir` must be
  structurally equal to TVM's reading of NAME.tir;
- `# TVM: <python expr giving a pass or a list of passes>` in the first
  lines: those TVM passes, applied to TVM's reading of NAME.tir, must give
  what TVM reads from tirc's output (tirc run with the file's own flags);
- fixed point (round trips only): `tirc` on tirc's output prints the same
  text again.

Differences listed in docs/tvm-differences.txt (lines `path: reason`, path
relative to the repository root) are reported as known, not failures.
Skips everything if `import tvm` fails.  Exit status 1 on any failure.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
import tvmref  # noqa: E402


def header(path, key):
    """the value of the first `# KEY:` line among the leading comments"""
    with open(path) as f:
        for line in f:
            m = re.match(r"#\s*%s:\s*(.*)$" % key, line.rstrip("\n"))
            if m:
                return m.group(1).strip()
    return None


def known_differences():
    known = {}
    path = os.path.join(ROOT, "docs", "tvm-differences.txt")
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line and not line.startswith("#") and ":" in line:
                p, why = line.split(":", 1)
                known[p.strip()] = why.strip()
    return known


# T.* calls on the right of `x = ...` that declare something (a buffer, a
# thread, a free var) rather than compute a value
_DECLARING = ("match_buffer", "alloc_buffer", "decl_buffer", "sblock_alloc_buffer", "allocate",
              "launch_thread", "env_thread", "Buffer", "axis", "bind", "var", "buffer", "local_scalar", "meta_var")


def _old_let(m):
    indent, name, rhs = m.group(1), m.group(2), m.group(3)
    call = re.match(r"T\.(\w+)(\.\w+)?\((.*)", rhs)
    if call and (call.group(1) in _DECLARING or call.group(3).startswith(")")
                 or call.group(3).startswith("is_size_var")):
        return m.group(0)  # a declaration (x = T.int32() included), not a let
    if re.match(r"-?\d|[\"'(\[]", rhs):
        return m.group(0)  # a Python value, bound by name
    return "%s%s: T.let = %s" % (indent, name, rhs)


def old_dialect_lets(src):
    """In the old `tir` spelling `x: T.int32 = v` and `x = <expr>` were
    LetStmts; TVM 0.27 reads both as mutable local scalars (T.local_scalar)
    and spells the binding `x: T.let[T.int32] = v` (what tirc prints).
    Translate them so that TVM reads old-dialect inputs as they were meant."""
    if not re.search(r"^from tvm\.script import tir as T", src, re.M):
        return src
    # ([ \t]+, not \s+: an indent does not run across blank lines to a
    # module-level name)
    src = re.sub(r"^([ \t]+)(\w+): T\.(\w+) = ", r"\1\2: T.let[T.\3] = ", src, flags=re.M)
    return re.sub(r"^([ \t]+)(\w+) = (.*)$", _old_let, src, flags=re.M)


def run_tirc(tirc, flags, path):
    """tirc FLAGS NAME.tir from the file's directory; (rc, stdout, stderr)"""
    d, base = os.path.split(path)
    p = subprocess.run([tirc] + flags + [base], cwd=d, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def apply_tvm_passes(expr, obj):
    import tvm  # noqa: F401
    passes = eval(expr, {"tvm": tvm})  # the test's own pass list
    if not isinstance(passes, (list, tuple)):
        passes = [passes]
    mod = tvmref.as_module(obj)
    seq = tvm.transform.Sequential(list(passes))
    with tvm.transform.PassContext(opt_level=3):
        return seq(mod)


def check_file(tirc, path):
    """returns (status, message): status in pass/fail/skip"""
    flags = shlex.split(header(path, "RUN") or "")
    emit = [f.split("=", 1)[1] for f in flags if f.startswith("--emit=")]
    emit += [flags[i + 1] for i, f in enumerate(flags[:-1]) if f == "--emit"]
    if any(e in ("c", "cuda") for e in emit):
        return "skip", "emits code, not TVMScript"
    tvm_passes = header(path, "TVM")
    round_trip = not any(f.startswith("--passes") for f in flags)
    if not round_trip and not tvm_passes:
        return "skip", "runs passes and names no `# TVM:` pass list"
    rc, out, err = run_tirc(tirc, flags, path)
    if rc != 0:
        return "fail", "tirc exit %d: %s" % (rc, err.strip()[:400])
    src = old_dialect_lets(open(path).read())
    # a text that says check_well_formed=False (TVM's own spelling of what
    # its checker refuses, such as B = T.Buffer(...) in a body) is read so
    # on both sides, as TVM's decorator asks
    wf = "check_well_formed=False" not in src
    try:
        want = tvmref.read(src, check_well_formed=wf)
    except Exception as e:  # TVM cannot read the input itself
        return "skip", "TVM cannot read the input: %s" % str(e).splitlines()[0][:200]
    try:
        got = tvmref.read(out, check_well_formed=wf and not (tvm_passes and "LowerCrossThreadReduction" in tvm_passes))
    except Exception as e:
        return "fail", "TVM cannot read tirc's output: %s" % str(e)[:600]
    if tvm_passes:
        want = apply_tvm_passes(tvm_passes, want)
        got = tvmref.as_module(got)
    elif type(want) is not type(got):
        want, got = tvmref.as_module(want), tvmref.as_module(got)
    ok, why = tvmref.equal(want, got)
    if not ok:
        return "fail", "not structurally equal to TVM's: %s" % why[:800]
    if round_trip:
        # The reprint goes to a private directory: a file beside the input
        # would be seen (and run) by the golden suite running alongside.
        with tempfile.TemporaryDirectory() as d:
            t = os.path.join(d, os.path.basename(path))
            with open(t, "w") as f:
                f.write(out)
            rc2, out2, err2 = run_tirc(tirc, [], t)
        if rc2 != 0:
            return "fail", "tirc cannot read its own output: %s" % err2.strip()[:400]
        if out2 != out:
            return "fail", "printing is not a fixed point (tirc (tirc FILE) != tirc FILE)"
    return "pass", ""


def main():
    if len(sys.argv) != 2:
        print("usage: run_oracle.py path/to/tirc", file=sys.stderr)
        return 2
    tirc = os.path.abspath(sys.argv[1])
    files = []
    for d, _, names in os.walk(os.path.join(ROOT, "tests", "passes")):
        for n in names:
            if n.endswith(".tir") and os.path.exists(os.path.join(d, n[:-4] + ".expected")):
                files.append(os.path.join(d, n))
    files.sort()
    if not tvmref.HAVE_TVM:
        print("SKIPPED: `import tvm` failed (%s): the oracle needs apache-tvm" % tvmref.TVM_ERROR)
        print("oracle: 0 passed, 0 failed, %d skipped" % len(files))
        return 0
    known = known_differences()
    npass = nfail = nskip = 0
    for path in files:
        rel = os.path.relpath(path, ROOT)
        status, msg = check_file(tirc, path)
        if status == "fail" and rel in known:
            print("KNOWN %s: known, expected: %s (%s)" % (rel, known[rel], msg.splitlines()[0][:200]))
            nskip += 1
        elif status == "fail":
            print("FAIL %s: %s" % (rel, msg))
            nfail += 1
        elif status == "skip":
            print("SKIP %s: %s" % (rel, msg))
            nskip += 1
        else:
            npass += 1
    print("oracle: %d passed, %d failed, %d skipped" % (npass, nfail, nskip))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
