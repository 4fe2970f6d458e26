#!/usr/bin/env bash
# tirc's command line: flags, exit codes (0 ok, 1 input error, 2 usage), -o, stdin.
set -u
tirc=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
relu="$root/examples/relu.tir"
pass=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() { # name expected-rc pattern-in-stdout+stderr cmd...
  local name=$1 want=$2 pat=$3; shift 3
  "$@" >"$tmp/out" 2>&1; local rc=$?
  if [ "$rc" = "$want" ] && grep -q -E -- "$pat" "$tmp/out"; then pass=$((pass+1)); else
    fail=$((fail+1)); echo "FAIL cli/$name: exit $rc (want $want), pattern '$pat'"; head -n 5 "$tmp/out"; fi
}
check help 0 "usage: tirc" "$tirc" --help
check version 0 "^tirc [0-9]+\.[0-9]+" "$tirc" --version
check no-input 2 "no input file" "$tirc"
check bad-flag 2 "unknown option '--frobnicate'" "$tirc" --frobnicate "$relu"
check bad-emit 2 "unknown --emit kind 'llvm'" "$tirc" --emit=llvm "$relu"
check two-inputs 2 "more than one input file" "$tirc" "$relu" "$relu"
check dash-o-missing 2 "-o needs a file name" "$tirc" "$relu" -o
check unknown-pass 2 "unknown pass 'bogus'; known passes: .*compact \(CompactBufferAllocation\)" "$tirc" --passes=bogus "$relu"
check missing-file 1 "cannot read '$tmp/nope.tir'" "$tirc" "$tmp/nope.tir"
check list-passes 0 "CompactBufferAllocation +compact" "$tirc" --list-passes
check list-pipelines 0 "^  default " "$tirc" --list-passes
check print-tir 0 "^# from tvm.script import tirx as T" "$tirc" "$relu"
check dialect-tir 0 "with T.block\(\"compute\"\)" "$tirc" --dialect=tir "$relu"
check stdin 0 "def relu" sh -c "'$tirc' - < '$relu'"
check stdin-error 1 "^<stdin>:1:8: error: '\(' was never closed" sh -c "printf 'garbage(' | '$tirc' -"
check seed 0 "offset=bx \* 2097152 \+ by \* 8192 \+ tx \* 512 \+ ty \* 2" "$tirc" --passes=compact,lower_match "$relu"
check print-after-all 0 "; IR after LowerMatchBuffer \(lower_match\)" "$tirc" --passes=compact,lower_match --print-after-all "$relu"
check print-after 0 "; IR after CompactBufferAllocation \(compact\)" "$tirc" --passes=compact,lower_match --print-after=compact "$relu"
check time-passes 0 "CompactBufferAllocation \(compact\)" "$tirc" --passes=compact,lower_match --time-passes "$relu"
check no-verify 0 "def relu" "$tirc" --passes=compact --no-verify-each "$relu"
"$tirc" --passes=compact,lower_match -o "$tmp/o.tir" "$relu" >"$tmp/so" 2>&1; rc=$?
if [ $rc = 0 ] && [ ! -s "$tmp/so" ] && grep -q "relu_a_shared = T.sblock_alloc_buffer((2, 2, 64, 64)" "$tmp/o.tir"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL cli/dash-o"; fi
check emit-c 0 "int32_t relu\(" "$tirc" --emit=c "$relu"
check emit-cuda 0 "__global__" "$tirc" --emit=cuda "$relu"
echo "cli: $pass passed, $fail failed"
[ $fail = 0 ]
