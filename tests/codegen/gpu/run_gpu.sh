#!/usr/bin/env bash
# Run every codegen kernel on a GPU: tirc --emit=cuda, then nvcc builds the
# generated launcher with the kernel's own harness (../NAME_ref.c, compiled
# as CUDA with -DTIR_GPU: DEV()/BACK() move the arrays to and from the
# device), and runs it against the same plain C reference.
#   tests/codegen/gpu/run_gpu.sh build/bin/tirc [sm_80]
# COMPILE_ONLY=1 builds every kernel with its harness and runs none (for a
# machine with nvcc and no GPU); RACECHECK=1 runs each under
# compute-sanitizer's racecheck (a shared-memory hazard fails the kernel).  For a GPU machine without tirc's
# libraries: EMIT_TO=DIR writes every kernel's CUDA to DIR and stops (run
# where tirc runs), FROM=DIR then builds and runs those instead of calling
# tirc (the first argument is then ignored).
set -u
tirc=${FROM:+unused}; tirc=${tirc:-$(realpath "$1")}
arch=${2:-sm_80}
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
shopt -s nullglob
kernels=("$root/examples/relu.tir" "$root/examples/chain.tir" "$here"/*.tir)
if [ -n "${EMIT_TO:-}" ]; then
  mkdir -p "$EMIT_TO"
  for k in "${kernels[@]}"; do
    name=$(basename "$k" .tir)
    "$tirc" --emit=cuda "$k" -o "$EMIT_TO/$name.cu" 2>/dev/null || { echo "FAIL $name (tirc --emit=cuda)"; fail=$((fail+1)); }
  done
  exit $((fail != 0))
fi
for k in "${kernels[@]}"; do
  name=$(basename "$k" .tir)
  if { if [ -n "${FROM:-}" ]; then cp "$FROM/$name.cu" "$tmp/$name.cu"; else "$tirc" --emit=cuda "$k" -o "$tmp/$name.cu"; fi; } &&
     nvcc -arch="$arch" -O2 -Werror all-warnings -DTIR_GPU -I"$here" -x cu "$here/${name}_ref.c" "$tmp/$name.cu" -o "$tmp/$name" &&
     { [ -n "${COMPILE_ONLY:-}" ] || ${RACECHECK:+compute-sanitizer --tool racecheck --error-exitcode 1 --print-limit 5} "$tmp/$name"; }; then
    pass=$((pass+1))
  else
    fail=$((fail+1)); echo "FAIL $name (gpu)"
  fi
done
echo "codegen-gpu${COMPILE_ONLY:+ (compile only)}${RACECHECK:+ (racecheck)}: $pass passed, $fail failed"
[ $fail -eq 0 ]
