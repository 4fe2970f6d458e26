"""peak_check.py TIRC FILE... - the peak --emit=buffer-assignment reports
(a sweep over the live ranges' ends) is the one a count of every live value
at every step finds: the first step with the most live bytes, a value and
the one it took in place of counted once.  Exit 1 on a difference."""
import re
import subprocess
import sys

tirc, files = sys.argv[1], sys.argv[2:]
bad = checked = 0
for f in files:
    r = subprocess.run([tirc, "--emit=buffer-assignment", f], capture_output=True, text=True)
    if r.returncode != 0:
        continue
    allocs, values = [], []
    for line in r.stdout.splitlines():
        if line.startswith("allocation "):
            allocs.append([])
        m = re.match(r" value: <\d+ (\S+) @0> \(size=(-?\d+),offset=-?\d+\): \S+(?: \(in place of (\S+)\))?$", line)
        if m:
            v = {"name": m.group(1), "bytes": int(m.group(2)), "shares": m.group(3), "first": -1, "end": -1}
            allocs[-1].append(v)
            values.append(v)
    steps = int(re.search(r"HloLiveRange \(max (\d+)\)", r.stdout).group(1))
    ranges = re.findall(r"^    (\S+)\{\}:(-?\d+)-(-?\d+)$", r.stdout, re.M)
    k = 0
    for v in values:
        if k < len(ranges) and ranges[k][0] == v["name"]:
            v["first"], v["end"] = int(ranges[k][1]), int(ranges[k][2]) + 1
            k += 1
    peak, peak_at = -1, 0
    for t in range(steps):
        live = 0
        for al in allocs:
            for v in al:
                if not (v["first"] <= t < v["end"] and v["bytes"] > 0):
                    continue
                live += v["bytes"]
                if v["shares"]:
                    for w in al:
                        if w["name"] == v["shares"] and w["first"] <= t < w["end"]:
                            live -= min(w["bytes"], v["bytes"])
        if live > peak:
            peak, peak_at = live, t
    m = re.search(r"Live ranges at (\d+) \(peak\)", r.stdout)
    got = int(m.group(1)) if m else None
    want = peak_at if peak >= 0 else None
    checked += 1
    if got != want:
        bad += 1
        print(f"peak_check: {f}: peak at {got}, a count at every step finds {want}")
print(f"peak_check: {checked} reports, {bad} wrong")
sys.exit(1 if bad else 0)
