#!/usr/bin/env bash
# c_vs_exec.sh HARNESS FILE [CC] [exec_harness options...]: the generated C of
# FILE (after the default pipeline) against the interpreter on FILE as
# written, on the same seeded inputs (tests/tools/exec_harness.c).  Exit 0
# when they agree; 1 with the first difference or the failing step.
set -u
harness=$1; file=$2; cc=${3:-gcc}; shift 3 2>/dev/null || shift $#
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$harness" gen "$file" "$tmp" "$@" || { echo "c_vs_exec: $file: exec_harness gen failed"; exit 1; }
# the kernel as tirc writes it compiles warning-free (the harness's main.c is not held to that)
if ! $cc -std=c11 -O1 -Wall -Wextra -Werror -c "$tmp/kernel.c" -o "$tmp/kernel.o" >"$tmp/cc.log" 2>&1; then
  echo "c_vs_exec: $file: $cc -Wall -Wextra -Werror refused the kernel"; head -n 20 "$tmp/cc.log"; exit 1
fi
if ! $cc -std=c11 -O1 -w "$tmp/kernel.c" "$tmp/main.c" -o "$tmp/prog" -lm >"$tmp/cc.log" 2>&1; then
  echo "c_vs_exec: $file: $cc failed"; head -n 20 "$tmp/cc.log"; exit 1
fi
if ! "$tmp/prog" "$tmp/in.bin" "$tmp/out.bin"; then echo "c_vs_exec: $file: the C program failed"; exit 1; fi
"$harness" check "$file" "$tmp" "$@" || exit 1
