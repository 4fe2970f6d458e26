#!/usr/bin/env bash
# run.sh TIRC [STRIDE]: tir_exp_f32 (the float32 e^x of tirc's generated C)
# against e^x correctly rounded, on every STRIDE-th float (1: all 2^32).
set -eu
tirc=$1; stride=${2:-1}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$tirc" --emit=c "$here/exp_f32.tir" -o "$tmp/exp.c"
gcc -std=c11 -O2 -fopenmp -Wall -Wextra -Werror -DEXP_C="\"$tmp/exp.c\"" -DSTRIDE="$stride" \
  "$here/exp_f32_check.c" -o "$tmp/check" -lm
"$tmp/check"
