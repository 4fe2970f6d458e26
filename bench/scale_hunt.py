"""scale_hunt.py - run tirc on bench/gen_huge.py's programs at growing sizes
and flag crashes, timeouts, unclear errors and growth worse than linear.

usage: python3 bench/scale_hunt.py [--sizes 1000,4000,16000] [--dims a,b] [--cmds name,..] [--timeout 60]
       python3 bench/scale_hunt.py --cc [--sizes 1000] [--dims a,b]
Prints one line per (dimension, command, size): exit status, seconds, peak
MiB, and the ratio of time to the previous size's; a '!' marks a finding.
With --cc: each program's --emit=c through gcc -std=c11 -Wall -Wextra
-Werror -c (a '!' where tirc's C does not compile).
"""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_huge  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIRC = os.path.join(ROOT, "build", "bin", "tirc")

CMDS = {
    "print": [],
    "default": ["--passes=default"],
    "c": ["--emit=c"],
    "cuda": ["--emit=cuda"],
    "metadata": ["--emit=metadata"],
    "bufassign": ["--emit=buffer-assignment"],
    "plan_memory": ["--passes=default,plan_memory"],
}
PASSES = ["canonicalize_loop", "simplify", "lower_cross_thread", "lower_init", "plan_alloc", "to_opaque", "compact",
          "lower_match", "lower_opaque", "flatten", "lower_thread_allreduce", "remove_noop", "lower_intrin"]
for p in PASSES:
    CMDS["p:" + p] = ["--passes=" + p]


def arg(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def run(flags, path, timeout):
    r = subprocess.run(["timeout", str(timeout), "/usr/bin/time", "-f", "@@ %e %M", TIRC] + flags + [path, "-o", os.devnull],
                       capture_output=True, text=True)
    m = re.search(r"@@ ([\d.]+) (\d+)\s*$", r.stderr)
    err = r.stderr[:m.start()] if m else r.stderr
    rc = r.returncode
    if m and rc != 124:
        # /usr/bin/time reports "Command terminated by signal" / "exited with non-zero status" lines
        sig = re.search(r"terminated by signal (\d+)", err)
        if sig:
            rc = 128 + int(sig.group(1))
    return rc, (float(m.group(1)) if m else float(timeout)), (int(m.group(2)) if m else 0), err


def cc(dims, sizes, timeout):
    tmp = tempfile.mkdtemp(prefix="scale_hunt_cc")
    for d in dims:
        for n in sizes:
            src, c = os.path.join(tmp, f"{d}_{n}.tir"), os.path.join(tmp, f"{d}_{n}.c")
            with open(src, "w") as f:
                f.write(gen_huge.DIMS[d](n))
            r = subprocess.run(["timeout", str(timeout), TIRC, "--emit=c", src, "-o", c], capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{d:18} cc {n:7} tirc rc={r.returncode}" + (" ! CRASH/TIMEOUT" if r.returncode not in (0, 1) else ""))
                continue
            g = subprocess.run(["timeout", str(timeout * 4), "gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-c", c, "-o", os.devnull],
                               capture_output=True, text=True)
            print(f"{d:18} cc {n:7} gcc rc={g.returncode}" + ("" if g.returncode == 0 else "  ! C does not compile: " + g.stderr.strip()[:200]),
                  flush=True)


def main():
    if "--cc" in sys.argv:
        return cc(arg("--dims", ",".join(gen_huge.DIMS)).split(","), [int(s) for s in arg("--sizes", "1000").split(",")],
                  int(arg("--timeout", "60")))
    sizes = [int(s) for s in arg("--sizes", "1000,4000,16000").split(",")]
    dims = arg("--dims", ",".join(gen_huge.DIMS)).split(",")
    cmds = arg("--cmds", ",".join(CMDS)).split(",")
    timeout = int(arg("--timeout", "60"))
    tmp = tempfile.mkdtemp(prefix="scale_hunt")
    for d in dims:
        files = {}
        for n in sizes:
            files[n] = os.path.join(tmp, f"{d}_{n}.tir")
            with open(files[n], "w") as f:
                f.write(gen_huge.DIMS[d](n))
        for c in cmds:
            prev = None
            for n in sizes:
                rc, t, kb, err = run(CMDS[c], files[n], timeout)
                flag = ""
                if rc not in (0, 1):
                    flag = "! CRASH/TIMEOUT"
                elif rc == 1 and not re.search(r"^\S+:\d+:\d+: error:|nested too deeply", err, re.M):
                    flag = "! unclear error"
                ratio = t / prev if prev and prev > 0.05 else None
                if ratio and ratio > 1.5 * (n / last_n):
                    flag += " ! superlinear"
                print(f"{d:18} {c:26} {n:7} rc={rc:<3} {t:7.2f}s {kb // 1024:6}MiB"
                      + (f" x{ratio:5.1f}" if ratio else "       ") + f" {flag}"
                      + (f"  [{err.strip().splitlines()[0][:110]}]" if rc != 0 and err.strip() else ""), flush=True)
                prev, last_n = t, n
                if rc == 124:
                    break


if __name__ == "__main__":
    main()
