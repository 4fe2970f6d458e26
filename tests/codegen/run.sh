#!/usr/bin/env bash
# Code generation, checked by running.  For each kernel (examples/relu.tir,
# examples/chain.tir and tests/codegen/*.tir), with NAME_ref.c beside it (a
# plain C reference and a main() that fills random data, calls both and
# compares: bit-exact for ints, 1e-5 relative for floats):
#   c-gcc    tirc --emit=c, compiled with gcc -std=c11 -Wall -Wextra -Werror
#            together with the harness, run;
#   c-clang  the same with clang;
#   c-openmp where a T.parallel loop became an OpenMP loop: gcc -fopenmp, run
#            on two threads;
#   exec     the generated C against tirc's interpreter on the kernel as
#            written, on the same seeded inputs (tests/exec/c_vs_exec.sh);
#   cuda     tirc --emit=cuda, nvcc -Werror all-warnings -c for sm_80, and with
#            FULL=1 (make codegen-full) for sm_90 too, in one call
#            (compile only; skipped with a message when nvcc is absent).
# A kernel whose header holds `# EMIT-C: error: TEXT` (a dtype C11 cannot
# print) is checked the other way for C: tirc --emit=c must exit 1 with
# TEXT in its message (check c-error); CUDA is checked as usual.
# A kernel whose header holds `# EXEC: skip REASON` skips the two exec checks.
# Each (kernel, check) counts once in the closing line.
set -u
tirc=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
harness=$(dirname "$tirc")/../tests/tools/exec_harness
pass=0; fail=0
CFLAGS="-std=c11 -Wall -Wextra -Werror -O2"
ok() { pass=$((pass+1)); echo "PASS $1"; }
bad() { fail=$((fail+1)); echo "FAIL $1"; [ -f "$2" ] && head -n 30 "$2"; }
have() { command -v "$1" >/dev/null 2>&1; }
kernels=("$root/examples/relu.tir" "$root/examples/chain.tir")
shopt -s nullglob
for f in "$here"/*.tir; do kernels+=("$f"); done
have nvcc || echo "codegen: nvcc not found: skipping the CUDA compile checks"
have clang || echo "codegen: clang not found: skipping the clang checks"
for k in "${kernels[@]}"; do
  name=$(basename "$k" .tir)
  ref="$here/${name}_ref.c"
  c_error=$(grep -m1 -E '^# EMIT-C: error: ' "$k" | sed -E 's/^# EMIT-C: error: //')
  if [ -n "$c_error" ]; then
    "$tirc" --emit=c "$k" -o "$tmp/$name.c" 2>"$tmp/$name.err"; rc=$?
    if [ $rc -eq 1 ] && grep -qF -- "$c_error" "$tmp/$name.err"; then ok "$name: c-error"
    else bad "$name: c-error: expected exit 1 and '$c_error', got exit $rc" "$tmp/$name.err"; fi
    c_error=skip
  fi
  if [ ! -f "$ref" ]; then bad "$name: no ${name}_ref.c" /dev/null; continue; fi
  if [ "$c_error" = skip ]; then
    :
  elif ! "$tirc" --emit=c "$k" -o "$tmp/$name.c" 2>"$tmp/$name.err"; then
    bad "$name: tirc --emit=c" "$tmp/$name.err"
  else
    for cc in gcc clang; do
      have $cc || continue
      if ! $cc $CFLAGS -I"$here" "$tmp/$name.c" "$ref" -o "$tmp/$name.$cc" -lm >"$tmp/$name.$cc.log" 2>&1; then
        bad "$name: c-$cc: compile" "$tmp/$name.$cc.log"
      elif ! "$tmp/$name.$cc" >"$tmp/$name.$cc.out" 2>&1; then
        bad "$name: c-$cc: run" "$tmp/$name.$cc.out"
      else
        ok "$name: c-$cc"
      fi
    done
    # a kernel whose header holds `# EXEC: skip REASON` is not run against the interpreter
    exec_skip=$(grep -m1 -E '^# EXEC: skip ' "$k" | sed -E 's/^# EXEC: skip //')
    if [ -n "$exec_skip" ]; then
      echo "codegen: $name: no interpreter check: $exec_skip"
    else
    # the C against the interpreter: both run the kernel on the same inputs
    # (relu at its real size, 268M elements a tensor, takes ~40 s to interpret: its scaled copy)
    ek=$k; [ "$name" = relu ] && ek="$here/../exec/relu_small.tir"
    if "$here/../exec/c_vs_exec.sh" "$harness" "$ek" gcc >"$tmp/$name.exec" 2>&1; then ok "$name: exec"
    else bad "$name: exec" "$tmp/$name.exec"; fi
    # the same with the memory plan (PlanMemory: one workspace, views at offsets, in-place reuse)
    # against the interpreter on the program as written: planning keeps the results bit for bit
    if "$here/../exec/c_vs_exec.sh" "$harness" "$ek" gcc --passes=default,plan_memory >"$tmp/$name.pexec" 2>&1; then
      ok "$name: exec-planned"
    else bad "$name: exec-planned" "$tmp/$name.pexec"; fi
    fi
    # T.parallel loops are OpenMP loops when built with OpenMP: run them on two threads
    if grep -q 'pragma omp parallel' "$tmp/$name.c"; then
      if ! gcc $CFLAGS -fopenmp -I"$here" "$tmp/$name.c" "$ref" -o "$tmp/$name.omp" -lm >"$tmp/$name.omp.log" 2>&1; then
        bad "$name: c-openmp: compile" "$tmp/$name.omp.log"
      elif ! OMP_NUM_THREADS=2 "$tmp/$name.omp" >"$tmp/$name.omp.out" 2>&1; then
        bad "$name: c-openmp: run" "$tmp/$name.omp.out"
      else
        ok "$name: c-openmp"
      fi
    fi
  fi
  have nvcc || continue
  if ! "$tirc" --emit=cuda "$k" -o "$tmp/$name.cu" 2>"$tmp/$name.cuerr"; then
    bad "$name: tirc --emit=cuda" "$tmp/$name.cuerr"
  elif ! nvcc -gencode arch=compute_80,code=sm_80 ${FULL:+-gencode arch=compute_90,code=sm_90} -Werror all-warnings \
         -c "$tmp/$name.cu" -o "$tmp/$name.cu.o" >"$tmp/$name.nvcc" 2>&1; then
    bad "$name: cuda: nvcc" "$tmp/$name.nvcc"
  else
    ok "$name: cuda"
  fi
done
echo "codegen: $pass passed, $fail failed"
[ $fail -eq 0 ]
