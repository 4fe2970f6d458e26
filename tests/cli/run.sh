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
check bad-emit 2 "unknown --emit value 'llvm'" "$tirc" --emit=llvm "$relu"
check two-inputs 2 "more than one input file" "$tirc" "$relu" "$relu"
check dash-o-missing 2 "option '-o' needs a value" "$tirc" "$relu" -o
check unknown-pass 2 "unknown pass 'bogus'; known passes: .*compact \(CompactBufferAllocation\)" "$tirc" --passes=bogus "$relu"
check missing-file 1 "cannot read '$tmp/nope.tir'" "$tirc" "$tmp/nope.tir"
check list-passes 0 "CompactBufferAllocation +compact" "$tirc" --list-passes
check list-pipelines 0 "^  default " "$tirc" --list-passes
check undecorated-def 0 "undecorated_before.tir:8:1: warning: .before. has no decorator: read as @T.prim_func" "$tirc" "$root/tests/passes/roundtrip/undecorated_before.tir"
check param-default 0 "python_float_attrs.tir:10:53: warning: the default value of parameter .n. is ignored, as TVM ignores it" "$tirc" "$root/tests/passes/roundtrip/python_float_attrs.tir"
check python-helper 0 "module_level_python.tir:14:1: warning: .helper. has no decorator: a Python function beside the decorated ones, not read" "$tirc" "$root/tests/passes/roundtrip/module_level_python.tir"
check byte-offset-partial 0 "byte_offset_elems.tir:22:65: warning: buffer .J.: byte_offset 6 is not a whole number of its 32-bit elements: read as elem_offset 1, as TVM reads it" "$tirc" "$root/tests/passes/roundtrip/byte_offset_elems.tir"
check print-tir 0 "^# from tvm.script import tirx as T" "$tirc" "$relu"
check dialect-tir 0 "with T.block\(\"compute\"\)" "$tirc" --dialect=tir "$relu"
check stdin 0 "def relu" sh -c "'$tirc' - < '$relu'"
check stdin-error 1 "^<stdin>:1:8: error: '\(' was never closed" sh -c "printf 'garbage(' | '$tirc' -"
check seed 0 "offset=bx \* 2097152 \+ by \* 8192 \+ tx \* 512 \+ ty \* 2" "$tirc" --passes=compact,lower_match "$relu"
check print-after-all 0 "; IR after LowerMatchBuffer \(lower_match\)" "$tirc" --passes=compact,lower_match --print-after-all "$relu"
check print-after 0 "; IR after CompactBufferAllocation \(compact\)" "$tirc" --passes=compact,lower_match --print-after=compact "$relu"
check time-passes 0 "CompactBufferAllocation \(compact\)" "$tirc" --passes=compact,lower_match --time-passes "$relu"
check no-verify 0 "def relu" "$tirc" --passes=compact --no-verify-each "$relu"
check verify-raw-ptr 0 "warning: --verify-exec: after pass 'LowerIntrin', function 'f' hands raw pointers" "$tirc" --passes=lower_intrin --verify-exec "$root/tests/cli/verify_raw_ptr.tir"
# an access out of bounds whenever it runs: a warning as read and lowered
# (TVM's tests hold such programs), an error where code is generated
check oob-warning-tir 0 "oob_store_loop.tir:14:9: warning: store of B is out of bounds" "$tirc" --passes=default "$root/tests/hostile/oob_store_loop.tir"
check oob-error-c 1 "oob_store_loop.tir:14:9: error: store of B is out of bounds.*no code is generated" "$tirc" --emit=c "$root/tests/hostile/oob_store_loop.tir"
# a negative extent (TVM's own overflowed print): a warning as read for a
# print, an error where code is generated or a pass runs
check negative-extent-print 0 "negative_extent_print.tir:14:30: warning: buffer 'C_local': extent -64 is negative: read and printed" "$tirc" "$root/tests/passes/roundtrip/negative_extent_print.tir"
check negative-extent-c 1 "negative_extent_print.tir:14:30: error: buffer 'C_local': extent -64 is negative" "$tirc" --emit=c "$root/tests/passes/roundtrip/negative_extent_print.tir"
"$tirc" --passes=compact,lower_match -o "$tmp/o.tir" "$relu" >"$tmp/so" 2>&1; rc=$?
if [ $rc = 0 ] && [ ! -s "$tmp/so" ] && grep -q "relu_a_shared = T.sblock_alloc_buffer((2, 2, 64, 64)" "$tmp/o.tir"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL cli/dash-o"; fi
check emit-c 0 "int32_t relu\(" "$tirc" --emit=c "$relu"
check emit-cuda 0 "__global__" "$tirc" --emit=cuda "$relu"
# habits: --opt value, -o -, did-you-mean, colour, error limit, --symbol, --emit=h
check opt-space 0 "relu_a_shared = T.sblock_alloc_buffer\(\(2, 2, 64, 64\)" "$tirc" --passes compact "$relu"
check dash-o-stdout 0 "def relu" "$tirc" "$relu" -o -
cp "$relu" "$tmp/-r.tir"
check double-dash 0 "def relu" sh -c "cd '$tmp' && '$tirc' --emit=tir -- -r.tir"
check dash-file-without-double-dash 2 "unknown option '-r.tir'" sh -c "cd '$tmp' && '$tirc' -r.tir"
[ ! -e ./- ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL cli/dash-o-stdout made a file '-'"; rm -f ./-; }
check did-you-mean-opt 2 "unknown option '--pases'; did you mean '--passes'\?" "$tirc" --pases=compact "$relu"
check did-you-mean-emit 2 "unknown --emit value 'cuad'; did you mean 'cuda'\?" "$tirc" --emit cuad "$relu"
check did-you-mean-pass 2 "unknown pass 'compct'; did you mean 'compact'\?" "$tirc" --passes=compct "$relu"
check print-after-bogus 2 "--print-after: unknown pass 'bogus'" "$tirc" --print-after=bogus "$relu"
check print-after-typo 2 "did you mean 'lower_match'\?" "$tirc" --print-after=lower_mach "$relu"
check flag-with-value 2 "option '--time-passes' takes no value" "$tirc" --time-passes=1 "$relu"
check error-limit-bad 2 "--error-limit value 'many' is not a count" "$tirc" --error-limit=many "$relu"
printf '@T.prim_func\ndef f(A: T.Buffer((4,), "float32")):\n    A[0] = T.exq(A[0])\n    A[1] = T.lgo(A[1])\n    A[2] = T.sqtr(A[2])\n' >"$tmp/three.tir"
check color-always 1 $'\033\\[1;31merror: ' "$tirc" --color=always "$tmp/three.tir"
check color-never 1 "three.tir:3:12: error: unknown name 'T.exq'; did you mean 'T.exp'" "$tirc" --color=never "$tmp/three.tir"
# auto: colour on a terminal (script(1) gives one), none under NO_COLOR
if command -v script >/dev/null 2>&1; then
  script -qec "'$tirc' '$tmp/three.tir'" /dev/null >"$tmp/tty" 2>&1
  NO_COLOR=1 script -qec "'$tirc' '$tmp/three.tir'" /dev/null >"$tmp/tty-nc" 2>&1
  if grep -q $'\033' "$tmp/tty" && ! grep -q $'\033' "$tmp/tty-nc" && grep -q "error: unknown name 'T.exq'" "$tmp/tty-nc"; then
    pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL cli/color-auto-tty (NO_COLOR)"; cat -v "$tmp/tty" | head -3; fi
fi
check error-limit 1 "note: 2 more errors not shown \(error limit 1\)" "$tirc" --error-limit 1 "$tmp/three.tir"
"$tirc" --error-limit=1 "$tmp/three.tir" >"$tmp/el" 2>&1
[ "$(grep -c 'error:' "$tmp/el")" = 1 ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL cli/error-limit count"; cat "$tmp/el"; }
check symbol 0 "int32_t my_relu\(int8_t \*restrict relu_a" "$tirc" --emit=c --symbol=my_relu "$relu"
check symbol-bad 2 "--symbol value '9x' is not a C identifier" "$tirc" --emit=c --symbol=9x "$relu"
check emit-h 0 "^int32_t relu_packed\(const void \*args, void \*workspace\);" "$tirc" --emit=h "$relu"
# the header declares exactly what the C defines: both compile together
"$tirc" --emit=h --symbol=kern "$relu" -o "$tmp/kern.h" && "$tirc" --emit=c --symbol=kern "$relu" -o "$tmp/kern.c" &&
  printf '#include "kern.h"\n#include "kern.c"\n' >"$tmp/both.c" &&
  gcc -std=c11 -Wall -Wextra -Werror -Wmissing-prototypes -c "$tmp/both.c" -o "$tmp/both.o" -I"$tmp" 2>"$tmp/hc" &&
  pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL cli/emit-h-compiles"; head "$tmp/hc"; }
check cuda-one-thread 0 "chain.tir:23:5: warning: function 'chain' binds no thread here: its CUDA kernel runs on a single thread; loop 'i' \(extent 1024\) has no dependence between iterations and could be bound" "$tirc" --emit=cuda "$root/examples/chain.tir"
# the loop named is one that can be bound safely, or none
"$tirc" --emit=cuda "$root/tests/cli/bind_hint.tir" 2>"$tmp/bh" >/dev/null
for want in "scan:" "diag:" "tiled:io" "overlap:" "inner_ok:i" "twostage:" "twoview:"; do
  fn=${want%%:*}; loop=${want#*:}
  if [ -n "$loop" ]; then pat="function '$fn' binds no thread here: .*; loop '$loop' \(extent 8\) has no dependence"
  else pat="function '$fn' binds no thread here: its CUDA kernel runs on a single thread \(and no loop of it is provably free"; fi
  grep -q -E "$pat" "$tmp/bh" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL cli/bind-hint $fn"; grep "'$fn'" "$tmp/bh"; }
done
"$tirc" --emit=cuda "$relu" 2>"$tmp/cw" >/dev/null && ! grep -q warning "$tmp/cw" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL cli/cuda-threads-no-warning"; }
# a function of 40,000 parameters is 40,000 deep after FlattenBuffer (a
# DeclBuffer each): tirc's stack (1 GiB, its own thread) holds it where an
# 8 MiB one does not, and running out of the stack is an error, not a crash
python3 -c '
import sys
n = 40000
print("@T.prim_func\ndef f(" + ", ".join(f"A{i}: T.Buffer((16,), \"float32\")" for i in range(n)) + "):")
print("    for j in range(16):")
for i in range(n // 2): print(f"        A{2*i+1}[j] = A{2*i}[j]")' >"$tmp/params40k.tir"
check deep-params 0 "A39999_1 = T.decl_buffer" sh -c 'ulimit -s 8192; exec "$0" --passes=flatten "$1"' "$tirc" "$tmp/params40k.tir"
check deep-params-c 0 "A39999\[j\] = A39998\[j\]" sh -c 'ulimit -s 8192; exec "$0" --emit=c "$1"' "$tirc" "$tmp/params40k.tir"
check stack-overflow 1 "params40k.tir: error: the program is nested too deeply for tirc's stack \(set TIR_STACK_MB to more than 2\)" env TIR_STACK_MB=2 "$tirc" --emit=c "$tmp/params40k.tir"
# many kernels, each with its shared temporaries, under as many chained
# allocations (bench/gen_huge.py): PlanMemory's pools per kernel, and the
# peak --emit=buffer-assignment finds by a sweep is the one a count at every
# step finds (also on the examples, two with values in place)
python3 "$root/bench/gen_huge.py" reductions 40 >"$tmp/red40.tir"
check many-kernels-plan 0 "red_buf39\[tx\] = A_1\[tx \+ 1248\]" "$tirc" --passes=default,plan_memory "$tmp/red40.tir"
check many-kernels-peak 0 "peak_check: [0-9]+ reports, 0 wrong" python3 "$root/tests/cli/peak_check.py" "$tirc" "$tmp/red40.tir" "$root"/examples/*.tir "$root"/tests/exec/*.tir
# the interval packer alone
printf 'id,lower,upper,size\na,0,10,300\nb,0,10,700\nc,10,20,500\nd,10,20,500\n' >"$tmp/rect.csv" # OPT = LB = 1000
check plan-ok 0 "plan: 4 buffers, lower bound 1000, arena 1000, gap 0.00%, proven optimal" "$tirc" --plan-intervals="$tmp/rect.csv" -o "$tmp/plan.csv"
grep -q '^d,10,20,500,[0-9]' "$tmp/plan.csv" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL cli/plan-csv-out"; }
printf 'id,lower,upper,size\na,0,4,16\nb,7,3,8\n' >"$tmp/bad.csv"
check plan-bad-csv 1 "bad.csv:3:5: error: empty live range: upper 3 <= lower 7" "$tirc" --plan-intervals="$tmp/bad.csv"
check plan-budget-bad 2 "--plan-budget value 'abc' is not a count" "$tirc" --plan-budget=abc --plan-intervals="$tmp/bad.csv"
# --help and the man page list the same options
"$tirc" --help | grep -o -E '^  (-o|--[a-z-]+)' | sed 's/^ *//' | sort -u >"$tmp/help-opts"
grep -E '^\.BI? ' "$root/docs/tirc.1" | sed 's/\\-/-/g' | grep -o -E '(^\.BI -o|--[a-z-]+)' | sed 's/^\.BI //' | sort -u >"$tmp/man-opts"
if diff "$tmp/help-opts" "$tmp/man-opts" >"$tmp/optdiff"; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL cli/man-vs-help"; cat "$tmp/optdiff"; fi
python3 "$root/tests/cli/doc_links.py" "$root" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL cli/doc-links"; }
python3 "$root/tests/cli/doc_passes.py" "$tirc" "$root" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL cli/doc-passes"; }
echo "cli: $pass passed, $fail failed"
[ $fail = 0 ]
