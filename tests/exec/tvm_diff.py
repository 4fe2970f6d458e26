"""tvm_diff.py - which of tirc's and TVM's pass outputs keeps the meaning,
measured by running (make exec-tvm; needs apache-tvm, never part of tirc).

    python3 tests/exec/tvm_diff.py build/bin/tirc [PATH...]

For every tests/passes/**/NAME.tir with a `# TVM:` pass list (or the PATHs
given): TVM's passes are applied to TVM's reading of NAME.tir and its
output printed (mod.script()); tirc's own output is NAME.tir run with its
`# RUN:` flags.  Each output is read back by tirc and run against NAME.tir
on the same seeded inputs (tests/tools/exec_harness same: ints bit-exact,
floats within 1e-5).  A `# TVM-READ: literal` header gives TVM the old
dialect's `x: T.int32 = v` as TVM 0.27 reads it (a local scalar) instead of
the `T.let` the oracle rewrites it into.  Prints one line per input,
    PATH: tirc SAME|DIFFERS|...; tvm SAME|DIFFERS|...
and a summary.  Inputs the interpreter cannot run (tests/exec/passes.txt
`skip`) are listed as such.  Exit 1 when tirc's output differs anywhere.
"""
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "oracle"))
import tvmref  # noqa: E402
from run_oracle import header, old_dialect_lets, apply_tvm_passes  # noqa: E402

HARNESS = os.path.join(ROOT, "build", "tests", "tools", "exec_harness")


def conf():
    out = {}
    for line in open(os.path.join(HERE, "passes.txt")):
        line = line.strip()
        if line and not line.startswith("#") and ":" in line:
            p, v = line.split(":", 1)
            out[p.strip()] = v.strip()
    return out


def same(path, other, extra):
    p = subprocess.run([HARNESS, "same", path, other] + extra, capture_output=True, text=True, timeout=300)
    if p.returncode == 0:
        return "SAME", ""
    why = (p.stderr.strip().splitlines() or ["?"])
    first = why[0]
    if "cannot run" in p.stderr or "first program cannot run" in first:
        return "CANNOT-RUN", first
    if "fails where the first runs" in p.stderr:
        return "FAULTS", " ".join(why)[:300]
    if "differ" in first:
        return "DIFFERS", first
    return "CANNOT-READ", " ".join(why)[:300]


def main():
    tirc = os.path.abspath(sys.argv[1])
    cfg = conf()
    paths = sys.argv[2:]
    if not paths:
        for d, _, fs in os.walk(os.path.join(ROOT, "tests", "passes")):
            for f in sorted(fs):
                p = os.path.join(d, f)
                if f.endswith(".tir") and os.path.exists(p[:-4] + ".expected") and header(p, "TVM"):
                    paths.append(p)
    def has_tvm(p):
        try:
            return header(p, "TVM")
        except UnicodeDecodeError:  # a parse-error test of bad bytes
            return None
    paths = [os.path.abspath(p) for p in paths if has_tvm(p) and
             (os.path.exists(p[:-4] + ".expected") or "/tests/exec/" in os.path.abspath(p))]
    paths.sort()
    counts = {}
    tirc_bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for p in paths:
            rel = os.path.relpath(p, os.path.join(ROOT, "tests"))
            c = cfg.get(rel, "")
            if c.startswith(("skip:", "slow:", "norun:")):
                print("%s: not run (%s)" % (rel, c))
                counts["not run"] = counts.get("not run", 0) + 1
                continue
            extra = shlex.split(c)
            flags = shlex.split(header(p, "RUN") or "")
            r = subprocess.run([tirc] + flags + [os.path.basename(p)], cwd=os.path.dirname(p), capture_output=True,
                               text=True)
            tirc_out = os.path.join(tmp, "tirc.tir")
            open(tirc_out, "w").write(r.stdout)
            t_verdict = same(p, tirc_out, extra) if r.returncode == 0 else ("TIRC-FAILS", r.stderr[:200])
            try:
                src = open(p).read()
                if header(p, "TVM-READ") != "literal":
                    src = old_dialect_lets(src)
                want = apply_tvm_passes(header(p, "TVM"), tvmref.read(src))
                tvm_out = os.path.join(tmp, "tvm.tir")
                open(tvm_out, "w").write(want.script())
                v_verdict = same(p, tvm_out, extra)
            except Exception as e:  # TVM cannot read the input or run its pass
                v_verdict = ("TVM-FAILS", str(e).splitlines()[0][:200] if str(e) else repr(e))
            if t_verdict[0] not in ("SAME",):
                tirc_bad += 1
            key = "tirc %s, tvm %s" % (t_verdict[0], v_verdict[0])
            counts[key] = counts.get(key, 0) + 1
            line = "%s: tirc %s; tvm %s" % (rel, t_verdict[0], v_verdict[0])
            if v_verdict[0] != "SAME" and v_verdict[1]:
                line += " (%s)" % v_verdict[1]
            if t_verdict[0] != "SAME" and t_verdict[1]:
                line += " [tirc: %s]" % t_verdict[1]
            print(line)
    print("tvm_diff: %d inputs: %s" % (len(paths), ", ".join("%s %d" % (k, v) for k, v in sorted(counts.items()))))
    return 1 if tirc_bad else 0


if __name__ == "__main__":
    sys.exit(main())
