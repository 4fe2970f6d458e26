"""check_numpy.py TIRC: tests/exec/float16.tir run by tirc --run against the
same computation in numpy (float16) and in float32 rounded to bfloat16
after every operation, on the inputs tirc makes (tir_exec_args_randomize:
splitmix64 per buffer, seeded with seed ^ FNV-1a(name) ^ index * golden),
hashed as tir_exec_hash does.  Exit 0 when every line agrees."""
import os
import subprocess
import sys

import numpy as np

M = (1 << 64) - 1


def splitmix(state):
    state[0] = (state[0] + 0x9E3779B97F4A7C15) & M
    z = state[0]
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)


def fnv(name):
    h = 1469598103934665603
    for c in name.encode():
        h = ((h ^ c) * 1099511628211) & M
    return h


def tir_hash(data):
    h = len(data)
    n8 = len(data) // 8 * 8
    words = list(np.frombuffer(data[:n8], dtype="<u8")) if n8 else []
    if n8 < len(data):
        words.append(int.from_bytes(data[n8:] + b"\0" * (8 - len(data) + n8), "little"))
    for w in words:
        h = ((h ^ int(w)) * 0x9E3779B97F4A7C15) & M
        h ^= h >> 29
    return h ^ (h >> 32)


def uniform(seed, n):
    st = [seed]
    return [float((splitmix(st) >> 11)) / 4503599627370496.0 - 1.0 for _ in range(n)]


def bf16(x):
    """float32 array rounded to bfloat16 (nearest, ties to even), as float32"""
    u = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) >> 16 << 16
    return u.astype(np.uint32).view(np.float32)


def bf16_of_double(vals):
    # a double rounded straight to bfloat16: exact through float64 -> bits
    out = []
    for v in vals:
        m, e = np.frexp(abs(v)) if v != 0 else (0.0, 0)
        q = 2.0 ** (max(e - 1, -126) - 7)
        r = np.round(abs(v) / q) * q  # numpy rounds half to even
        out.append(-r if v < 0 else r)
    return np.array(out, dtype=np.float32)


def main():
    tirc = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "float16.tir")
    out = subprocess.run([tirc, "--run", path], capture_output=True, text=True)
    if out.returncode != 0:
        print("check_numpy: tirc --run failed:", out.stderr)
        return 1
    seed, n = 1, 256
    names = ["A", "B", "C", "D"]
    bufs = {}
    for i, nm in enumerate(names):
        s = (seed ^ fnv(nm) ^ ((i * 0x9E3779B97F4A7C15) & M)) & M
        vals = uniform(s, n)
        if i < 2:
            bufs[nm] = np.array(vals, dtype=np.float64).astype(np.float16)
        else:
            bufs[nm] = bf16_of_double(vals)
    a = bufs["A"]
    h3, h1 = np.float16(0.3), np.float16(0.1)
    bufs["B"] = (a * a + a * h3) - h1
    c = bufs["C"]
    b3, b1 = bf16_of_double([0.3])[0], bf16_of_double([0.1])[0]
    bufs["D"] = bf16(bf16(bf16(c * c) + bf16(c * b3)) - b1)
    want = []
    for nm in names:
        x = bufs[nm]
        data = x.tobytes() if x.dtype == np.float16 else (x.view(np.uint32) >> 16).astype(np.uint16).tobytes()
        dt = "float16" if x.dtype == np.float16 else "bfloat16"
        want.append("%s %s %d %016x" % (nm, dt, n, tir_hash(data)))
    got = out.stdout.split("\n")[:4]
    if got != want:
        print("check_numpy: tirc --run and numpy differ:\n  tirc:  %s\n  numpy: %s" % ("\n         ".join(got), "\n         ".join(want)))
        return 1
    print("check_numpy: float16 and bfloat16 agree with numpy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
