"""doc_links.py ROOT - every relative link in README.md and docs/*.md names
a file or folder that exists in the tree (so the links work in a clone)."""
import glob
import os
import re
import sys

root = sys.argv[1]
bad = 0
for md in [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md"))):
    text = open(md, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            continue
        path = os.path.normpath(os.path.join(os.path.dirname(md), target.split("#")[0]))
        if not os.path.exists(path):
            print(f"{os.path.relpath(md, root)}: broken link {target}")
            bad += 1
sys.exit(1 if bad else 0)
