"""smoke.py - mutation fuzzing of tirc, bounded and deterministic.

Takes every tests/passes/**/*.tir and examples/*.tir, makes N mutants of each
(byte flips, deletions, duplicated or truncated lines, random tokens spliced
in), runs `tirc` on each (with and without --passes=compact,lower_match) and
checks that tirc never crashes: exit status 0, or 1 with a
`FILE:LINE:COL: error:` (or `FILE: error:`) line on stderr.  Prints a closing
line `fuzz: N passed, N failed`.

usage: python3 tests/fuzz/smoke.py build/bin/tirc [mutants-per-file]
"""
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

TOKENS = [b"T.", b"(", b")", b"[", b"]", b":", b",", b"=", b"\x00", b"\xff\xfe", b"9" * 30,
          b"T.block(", b"T.match_buffer(", b"T.slice_tensor(", b"for i in", b"with ",
          b"    ", b"\n", b"-", b"//", b"%", b"T.int8(", b"\"float33\"", b"lambda", b"@"]


def mutate(rng, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        if not data:
            data += rng.choice(TOKENS)
            continue
        pos = rng.randrange(len(data))
        if op == 0:
            data[pos] = rng.randrange(256)
        elif op == 1:
            del data[pos:pos + rng.randint(1, 20)]
        elif op == 2:
            data[pos:pos] = rng.choice(TOKENS)
        elif op == 3:
            lines = bytes(data).split(b"\n")
            i = rng.randrange(len(lines))
            lines.insert(i, lines[rng.randrange(len(lines))])
            data = bytearray(b"\n".join(lines))
        else:
            data = data[:pos]
    return bytes(data)


def main():
    tirc = os.path.abspath(sys.argv[1])
    per_file = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    files = sorted(glob.glob(os.path.join(root, "tests/passes/**/*.tir"), recursive=True))
    files += sorted(glob.glob(os.path.join(root, "examples/*.tir")))
    rng = random.Random(20261121)
    passed = failed = 0
    err_re = re.compile(rb"^(mutant\.tir:\d+:\d+|mutant\.tir): error: ", re.M)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "mutant.tir")
        for f in files:
            src = open(f, "rb").read()
            for k in range(per_file):
                m = mutate(rng, src)
                with open(path, "wb") as out:
                    out.write(m)
                flags = [] if k % 2 == 0 else ["--passes=compact,lower_match"]
                try:
                    p = subprocess.run([tirc] + flags + ["mutant.tir"], cwd=tmp, capture_output=True, timeout=20)
                except subprocess.TimeoutExpired:
                    failed += 1
                    print(f"FAIL timeout: mutant {k} of {f}")
                    continue
                ok = p.returncode == 0 or (p.returncode == 1 and err_re.search(p.stderr))
                if ok:
                    passed += 1
                else:
                    failed += 1
                    keep = os.path.join(tmp, "..", f"tirc-crash-{os.path.basename(f)}-{k}.tir")
                    with open(keep, "wb") as out:
                        out.write(m)
                    print(f"FAIL exit {p.returncode}: mutant {k} of {f} (saved {os.path.abspath(keep)})")
                    print(p.stderr.decode("utf-8", "replace")[-600:])
    print(f"fuzz: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
