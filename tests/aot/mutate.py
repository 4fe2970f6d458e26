"""mutate.py META.json HARNESS LIB.so - every numeric field of the AOT
description changed in turn (+1, then +8): the reference harness, run
through the mutant (AOT_META), must refuse it (the loader's checks: exit 3)
or fail its comparison (the result changed: any other non-zero exit).  The
minor version is the one field a loader must accept changed: by the
versioning rule, minor versions only add keys."""
import json
import os
import subprocess
import sys
import tempfile

ACCEPTED = {("version", 1)}


def paths(v, at=()):
    if isinstance(v, bool):
        return
    if isinstance(v, int):
        yield at
    elif isinstance(v, dict):
        for k, x in v.items():
            yield from paths(x, at + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from paths(x, at + (i,))


def setp(v, p, x):
    for k in p[:-1]:
        v = v[k]
    v[p[-1]] = x


def getp(v, p):
    for k in p:
        v = v[k]
    return v


def main():
    meta, harness, lib = sys.argv[1:4]
    base = json.load(open(meta))
    refused = changed = 0
    undetected = []
    with tempfile.TemporaryDirectory() as d:
        for p in paths(base):
            if p in ACCEPTED:
                continue
            for delta in (1, 8):
                m = json.loads(json.dumps(base))
                setp(m, p, getp(m, p) + delta)
                f = os.path.join(d, "m.json")
                json.dump(m, open(f, "w"), indent=1)
                env = dict(os.environ, AOT_META=f, AOT_LIB=lib)
                try:
                    r = subprocess.run([harness], env=env, capture_output=True, timeout=120)
                    rc = r.returncode
                except subprocess.TimeoutExpired:
                    rc = -1
                if rc == 3:
                    refused += 1
                elif rc != 0:
                    changed += 1
                else:
                    undetected.append("/".join(map(str, p)) + f" +{delta}")
    for u in undetected:
        print("undetected mutant:", u)
    print(f"{refused + changed + len(undetected)} mutants: {refused} refused by the loader's checks, "
          f"{changed} changed the result, {len(undetected)} undetected")
    return 1 if undetected else 0


sys.exit(main())
