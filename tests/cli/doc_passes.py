"""doc_passes.py TIRC ROOT - docs/passes.md against tirc itself:
- every registered pass (tirc --list-passes) has a row in the table (its
  alias and TVM name) and a `### Name (`alias`)` section;
- every example in a section (a `tirc --passes=P FILE.tir` command followed,
  in the same section, by a ```python block) is real: the block's lines are
  found, in order and contiguous, in what tirc prints for that command on
  the example programs the document shows."""
import os
import re
import subprocess
import sys
import tempfile

tirc, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
doc = open(os.path.join(root, "docs", "passes.md"), encoding="utf-8").read()
bad = 0


def fail(msg):
    global bad
    bad += 1
    print(f"docs/passes.md: {msg}")


listing = subprocess.run([tirc, "--list-passes"], capture_output=True, text=True, check=True).stdout
passes = []
for line in listing.splitlines():
    if line.startswith("pipelines:"):
        break
    m = re.match(r"^  (\w+)\s+(\w+)\s", line)
    if m:
        passes.append(m.groups())
if len(passes) < 10:
    fail(f"tirc --list-passes listed {len(passes)} passes")
headings = [h for h in re.findall(r"^### (.*)$", doc, flags=re.M)]
for name, alias in passes:
    if not re.search(rf"^\| `{alias}` \| {name} \|", doc, flags=re.M):
        fail(f"no table row for {name} (`{alias}`)")
    if not any(f"{name} (`{alias}`)" in h for h in headings):
        fail(f"no section '### {name} (`{alias}`)'")

# the example programs: the first ```python block, "# NAME.tir: ..." headers
progs = {}
first = re.search(r"```python\n(.*?)```", doc, flags=re.S).group(1)
for m in re.finditer(r"^# (\w+\.tir):[^\n]*\n(.*?)(?=^# \w+\.tir:|\Z)", first, flags=re.M | re.S):
    progs[m.group(1)] = "# from tvm.script import tirx as T\n" + m.group(2)
if len(progs) < 2:
    fail("the example programs were not found")

checked = 0
with tempfile.TemporaryDirectory() as tmp:
    for name, text in progs.items():
        open(os.path.join(tmp, name), "w").write(text)
    for section in re.split(r"^### ", doc, flags=re.M)[1:]:
        title = section.splitlines()[0]
        for m in re.finditer(r"`tirc (--passes=\S+) ([\w/]+\.tir)`(.*?)```python\n(.*?)```", section, flags=re.S):
            flag, prog, _, block = m.groups()
            if prog in progs:
                path = os.path.join(tmp, prog)
            elif os.path.isfile(os.path.join(root, prog)):  # a file of the tree (examples/relu.tir)
                path = os.path.join(root, prog)
            else:
                fail(f"{title}: example on unknown program {prog}")
                continue
            out = subprocess.run([tirc, flag, path], cwd=tmp, capture_output=True, text=True)
            want = block.rstrip("\n").splitlines()
            got = out.stdout.splitlines()
            found = any(got[i:i + len(want)] == want for i in range(len(got) - len(want) + 1))
            if out.returncode != 0 or not found:
                fail(f"{title}: `tirc {flag} {prog}` does not print the lines shown")
                print("\n".join(want))
                print("--- tirc printed:")
                print(out.stdout + out.stderr)
            checked += 1
if checked < 10:
    fail(f"only {checked} examples checked")
sys.exit(1 if bad else 0)
