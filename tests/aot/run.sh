#!/usr/bin/env bash
# AOT metadata, proven by loading (issue 14).  For each kernel of
# tests/codegen/ (and examples/relu.tir, examples/chain.tir):
#   load-C     tirc --emit=c built as a shared object; tirc --emit=metadata;
#              the NAME_ref.c reference harness linked with forwarders that
#              the loader generates from the JSON alone (aot_loader shim): the
#              reference's inputs are packed at the described offsets, the
#              packed symbol is called through dlopen, and the reference checks
#              the results.  The loader links jansson and not libtir.
#   run-C      aot_loader run: every buffer allocated at its described
#              `bytes`, filled from a seed, packed and called (built with
#              ASan, so a `bytes` too small is an error).
#   ptxas      tirc --emit=cuda --emit=metadata --target=cuda: every kernel's
#              shared bytes equal what ptxas -v reports, and its params equal
#              the PTX .entry parameter list (count and sizes).
# Then, on MUTATE kernels (all with FULL=1): every numeric field of the JSON
# changed in turn (+1 and +8) must be refused by the loader's checks or
# change the result (the reference fails); and a newer major version and a
# truncated file are refused with a clear message.
set -u
tirc=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cg="$root/tests/codegen"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); [ -n "${VERBOSE:-}" ] && echo "PASS $1"; return 0; }
bad() { fail=$((fail+1)); echo "FAIL $1"; [ -f "${2:-}" ] && head -n 20 "$2"; return 0; }
CF="-std=c11 -Wall -Wextra -Werror -O1 -g"
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer"
JL=$(pkg-config --cflags --libs jansson)
gcc $CF $SAN -I"$here" "$here/aot_loader.c" "$here/aot_load.c" -o "$tmp/aot_loader" $JL -ldl || { echo "aot: cannot build the loader"; exit 1; }
if nm -D "$tmp/aot_loader" 2>/dev/null | grep -q ' tir_'; then bad "loader links libtir"; fi
mutate_set=" symbolic vadd chain matmul_shared "
kernels=("$root/examples/relu.tir" "$root/examples/chain.tir")
for f in "$cg"/*.tir; do kernels+=("$f"); done
have_nvcc=1; command -v nvcc >/dev/null 2>&1 || { have_nvcc=0; echo "aot: nvcc not found: skipping the ptxas checks"; }
for k in "${kernels[@]}"; do
  name=$(basename "$k" .tir); d="$tmp/$name"; mkdir -p "$d"
  ref="$cg/${name}_ref.c"
  # `# AOT: skip REASON`: what the metadata does not describe (docs/aot-metadata.md)
  why=$(grep -m1 -E '^# AOT: skip ' "$k" | sed -E 's/^# AOT: skip //')
  if [ -n "$why" ]; then echo "aot: $name: skipped: $why"; continue; fi
  if grep -q -E '^# EMIT-C: error: ' "$k"; then c_ok=0; else c_ok=1; fi
  # the seed relu's C loaded and run under ASan: 268M-element tensors, 15 s
  # of the target's 50; with FULL=1 (make aot-full) only.  Its CUDA's ptxas
  # facts are checked here, and its C in codegen's run (relu_ref.c, -O2).
  if [ $c_ok = 1 ] && [ "$name" = relu ] && [ -z "${FULL:-}" ]; then
    c_ok=0; echo "aot: relu: its C loaded and run with FULL=1 only (268M-element tensors under ASan)"
  fi
  if [ $c_ok = 1 ]; then
    if ! "$tirc" --emit=c "$k" -o "$d/k.c" 2>"$d/err" || ! "$tirc" --emit=metadata "$k" -o "$d/k.json" 2>>"$d/err"; then
      bad "$name: tirc" "$d/err"; continue
    fi
    gcc -std=c11 -O2 -fPIC -shared $SAN "$d/k.c" -o "$d/k.so" -lm 2>"$d/err" || { bad "$name: build .so" "$d/err"; continue; }
    if "$tmp/aot_loader" shim "$d/k.json" >"$d/shim.c" 2>"$d/err" &&
       gcc $CF $SAN -I"$cg" -I"$here" "$ref" "$d/shim.c" "$here/aot_load.c" -o "$d/harness" $JL -ldl -lm 2>"$d/err"; then
      if AOT_META="$d/k.json" AOT_LIB="$d/k.so" "$d/harness" >"$d/out" 2>&1; then ok "$name: load-C"; else bad "$name: load-C" "$d/out"; fi
    else
      bad "$name: shim" "$d/err"
    fi
    syms=(); [ "$name" = symbolic ] && syms=(--sym=m=37 --sym=n=53)
    if "$tmp/aot_loader" run "$d/k.json" "$d/k.so" --seed=1 "${syms[@]}" >"$d/run" 2>&1; then ok "$name: run-C"
    elif grep -q 'give it with a reference harness' "$d/run"; then ok "$name: run-C (scalar args: harness only)"
    else bad "$name: run-C" "$d/run"; fi
    if [[ -n "${FULL:-}" || "$mutate_set" == *" $name "* ]]; then
      if python3 "$here/mutate.py" "$d/k.json" "$d/harness" "$d/k.so" >"$d/mut" 2>&1; then ok "$name: mutants"; echo "aot: $name: $(tail -n 1 "$d/mut")"
      else bad "$name: mutants" "$d/mut"; fi
    fi
  fi
  [ $have_nvcc = 1 ] || continue
  if ! "$tirc" --emit=cuda "$k" -o "$d/k.cu" 2>"$d/err" || ! "$tirc" --emit=metadata --target=cuda "$k" -o "$d/kc.json" 2>>"$d/err"; then
    bad "$name: tirc cuda" "$d/err"; continue
  fi
  # the PTX ptxas read, kept (--keep) rather than made by a second nvcc
  mkdir -p "$d/keep"
  if nvcc -cubin -arch=sm_80 -Xptxas -v --keep --keep-dir "$d/keep" "$d/k.cu" -o "$d/k.cubin" >"$d/ptxas" 2>&1 &&
     mv "$d/keep/k.ptx" "$d/k.ptx" 2>>"$d/ptxas" &&
     python3 "$here/ptxas_check.py" "$d/kc.json" "$d/ptxas" "$d/k.ptx" >"$d/pc" 2>&1; then ok "$name: ptxas"
  else bad "$name: ptxas" "$d/pc"; [ -f "$d/pc" ] || cat "$d/ptxas" | head; fi
done
# version and syntax refusals
k="$tmp/vadd/k.json"
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j["version"][0]+=1; json.dump(j, open(sys.argv[2],"w"))' "$k" "$tmp/v2.json"
if ! "$tmp/aot_loader" check "$tmp/v2.json" 2>"$tmp/v2.err" && grep -q "metadata version 2.0: this loader reads version 1.x" "$tmp/v2.err"; then ok "version"; else bad "version: expected a refusal naming both versions" "$tmp/v2.err"; fi
head -c 300 "$k" >"$tmp/trunc.json"
if ! "$tmp/aot_loader" check "$tmp/trunc.json" 2>"$tmp/tr.err" && grep -q -E "trunc.json:[0-9]+:[0-9]+: error: " "$tmp/tr.err"; then ok "truncated"; else bad "truncated: expected FILE:LINE:COL: error:" "$tmp/tr.err"; fi
sed '0,/"tirc"/s/"tirc"/"tirc" "x"/' "$k" >"$tmp/malformed.json" # a stray token
if ! "$tmp/aot_loader" check "$tmp/malformed.json" 2>"$tmp/mf.err" && grep -q -E "malformed.json:[0-9]+:[0-9]+: error: " "$tmp/mf.err"; then ok "malformed"; else bad "malformed: expected FILE:LINE:COL: error:" "$tmp/mf.err"; fi
# determinism: the same input gives the same bytes
"$tirc" --emit=metadata "$root/examples/relu.tir" >"$tmp/a.json"; "$tirc" --emit=metadata "$root/examples/relu.tir" >"$tmp/b.json"
if cmp -s "$tmp/a.json" "$tmp/b.json" && [ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["input_sha256"])' "$tmp/a.json")" = "$(sha256sum "$root/examples/relu.tir" | cut -d' ' -f1)" ]; then ok "deterministic, sha256"; else bad "deterministic, sha256"; fi
echo "aot: $pass passed, $fail failed"
[ $fail -eq 0 ]
