"""ptxas_check.py META.json PTXAS_LOG KERNEL.ptx - the CUDA AOT description
against what ptxas and the PTX say of the same .cu: every kernel's static
shared bytes (ptxas -v "N bytes smem") and its parameter list (the PTX
.entry: count and size of each)."""
import json
import re
import sys

SIZES = {"8": 1, "16": 2, "32": 4, "64": 8}


def main():
    meta, log, ptx = sys.argv[1:4]
    m = json.load(open(meta))
    kernels = {k["name"]: k for f in m["functions"] for k in f["kernels"]}
    smem, cur = {}, None
    for line in open(log):
        g = re.search(r"Compiling entry function '([^']+)'", line)
        if g:
            cur = g.group(1)
            smem[cur] = 0  # ptxas names smem only when there is some
        g = re.search(r"(\d+) bytes smem", line)
        if g and cur:
            smem[cur] = int(g.group(1))
    params = {}
    text = open(ptx).read()
    for g in re.finditer(r"\.entry\s+(\w+)\s*\(([^)]*)\)", text):
        params[g.group(1)] = [SIZES[t] for t in re.findall(r"\.param\s+\.[a-z](\d+)\s", g.group(2))]
    for g in re.finditer(r"\.entry\s+(\w+)\s*\(\s*\)", text):
        params[g.group(1)] = []
    bad = 0
    if set(kernels) != set(smem) or set(kernels) != set(params):
        print(f"kernels differ: metadata {sorted(kernels)}, ptxas {sorted(smem)}, ptx {sorted(params)}")
        return 1
    for name, k in kernels.items():
        if k["shared_bytes"] != smem[name]:
            print(f"{name}: shared_bytes {k['shared_bytes']}, ptxas {smem[name]}")
            bad += 1
        mine = [p["size"] for p in k["params"]]
        if mine != params[name]:
            print(f"{name}: params {mine}, PTX .entry {params[name]}")
            bad += 1
    print(f"{len(kernels)} kernels checked, {bad} differences")
    return 1 if bad else 0


sys.exit(main())
