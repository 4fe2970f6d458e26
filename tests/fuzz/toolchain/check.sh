#!/bin/sh
# check.sh - are nvcc's known bugs (README.md) still there?  Compiles each
# reproducer at nvcc's default -O3 (60 s each) and at -Xcicc -O1, and says
# which still fails.  Not part of make test (it takes minutes while the bugs
# are there); run it after an nvcc upgrade.
set -u
cd "$(dirname "$0")"
command -v nvcc >/dev/null || { echo "toolchain: no nvcc"; exit 0; }
TIRC=${1:-../../../build/bin/tirc}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$TIRC" --emit=cuda nvvm13_loop_min_hang.tir -o "$tmp/tirc_hang.cu" 2>/dev/null || { echo "toolchain: tirc failed"; exit 1; }
for f in "$tmp/tirc_hang.cu" nvvm13_loop_min_hang.cu nvvm13_deep_nest_segv.cu; do
  timeout 60 nvcc -arch=sm_80 -c "$f" -o "$tmp/o.o" >/dev/null 2>&1; o3=$?
  timeout 60 nvcc -arch=sm_80 -Xcicc -O1 -c "$f" -o "$tmp/o.o" >/dev/null 2>&1; o1=$?
  case $o3 in 0) s="fixed: compiles at -O3";; 124) s="still hangs at -O3";; *) s="still fails at -O3 (exit $o3)";; esac
  echo "toolchain: $(basename "$f"): $s; -Xcicc -O1: exit $o1"
done
