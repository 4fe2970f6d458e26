#!/usr/bin/env bash
# Fetch the Python grammar tirc parses TVMScript with, from PyPI, into
# build/deps/tree-sitter-python/ (never committed):
#  - tree-sitter-python 0.23.6 (source distribution): src/parser.c and
#    src/scanner.c, grammar ABI 14, which Debian's runtime 0.20.7 loads;
#  - its sdist lacks the headers a generated parser includes
#    (tree_sitter/parser.h, array.h, alloc.h), so they are taken from the
#    tree-sitter 0.23.2 source distribution (the runtime those parsers were
#    generated for), lib/src/.
# Safe to run twice: does nothing when the grammar is already there.
set -euo pipefail
VERSION=0.23.6
TS_VERSION=0.23.2
dest=${1:-build/deps/tree-sitter-python}
stamp="$VERSION+$TS_VERSION"
if [ -f "$dest/src/parser.c" ] && [ -f "$dest/.version" ] && [ "$(cat "$dest/.version")" = "$stamp" ]; then
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-binary :all: --no-deps -d "$tmp" "tree-sitter-python==$VERSION"
python3 -m pip download --quiet --no-binary :all: --no-deps -d "$tmp" "tree-sitter==$TS_VERSION"
tar -xzf "$tmp/tree_sitter_python-$VERSION.tar.gz" -C "$tmp"
tar -xzf "$tmp/tree-sitter-$TS_VERSION.tar.gz" -C "$tmp"
rm -rf "$dest"
mkdir -p "$dest/src/tree_sitter"
cp "$tmp/tree_sitter_python-$VERSION/src/parser.c" "$tmp/tree_sitter_python-$VERSION/src/scanner.c" "$dest/src/"
for h in parser.h array.h alloc.h ts_assert.h; do
  cp "$tmp/tree-sitter-$TS_VERSION/tree_sitter/core/lib/src/$h" "$dest/src/tree_sitter/"
done
echo "$stamp" > "$dest/.version"
echo "fetched tree-sitter-python $VERSION (headers from tree-sitter $TS_VERSION) into $dest"
