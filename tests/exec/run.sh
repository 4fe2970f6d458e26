#!/usr/bin/env bash
# The interpreter's tests (make exec).  Each tests/exec/NAME.tir says in its
# `# EXEC:` line what is checked:
#   c             the generated C (default pipeline) against the interpreter
#                 on the same seeded inputs (c_vs_exec.sh);
#   same-as F     tirc --run prints the same lines for NAME.tir and F (the
#                 same values in every buffer);
#   error [FLAGS] tirc FLAGS --run exits 1 with NAME.err on stderr;
#   numpy         checked by check_numpy.py against numpy;
#   verify        only the --verify-exec below (programs whose C is refused,
#                 e.g. with barriers).
# regress/*.tir are programs the fuzzer found (tests/fuzz/fuzz_exec.c): each
# runs through the default pipeline with --verify-exec, with its seed.
# Every one that runs is also put through the default pipeline and PlanMemory with
# --verify-exec.  Then every golden input of tests/passes/ through its own
# pipeline with --verify-exec (run_passes.sh).
set -u
tirc=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
harness=$(dirname "$tirc")/../tests/tools/exec_harness
pass=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL $1"; [ -f "$2" ] && head -n 20 "$2"; }
cd "$here"
for f in *.tir; do
  name=${f%.tir}
  what=$(grep -m1 -E '^# EXEC:' "$f" | sed -E 's/^# EXEC:[ ]*//')
  case "$what" in
    error*)
      flags=${what#error}
      # shellcheck disable=SC2086
      "$tirc" $flags --run "$f" >"$tmp/out" 2>"$tmp/err"; rc=$?
      if [ $rc -eq 1 ] && diff -u "$name.err" "$tmp/err" >"$tmp/diff"; then ok; else bad "$f: expected exit 1 and $name.err (exit $rc)" "$tmp/diff"; fi
      [ -n "${UPDATE:-}" ] && cp "$tmp/err" "$name.err"
      continue ;;
    c)
      if "$here/c_vs_exec.sh" "$harness" "$f" gcc >"$tmp/log" 2>&1; then ok; else bad "$f: C against the interpreter" "$tmp/log"; fi ;;
    same-as*)
      other=${what#same-as }
      if "$tirc" --run "$f" >"$tmp/a" 2>"$tmp/log" && "$tirc" --run "$other" >"$tmp/b" 2>>"$tmp/log" &&
         diff -u "$tmp/b" "$tmp/a" >>"$tmp/log"; then ok; else bad "$f: --run differs from $other" "$tmp/log"; fi ;;
    numpy)
      if python3 "$here/check_numpy.py" "$tirc" >"$tmp/log" 2>&1; then ok; else bad "$f: numpy" "$tmp/log"; fi ;;
    verify) ;;
    *) bad "$f: no '# EXEC:' line" /dev/null; continue ;;
  esac
  if "$tirc" --passes=default,plan_memory --verify-exec "$f" -o /dev/null 2>"$tmp/log"; then ok; else bad "$f: --verify-exec" "$tmp/log"; fi
done
for f in regress/*.tir; do
  seed=$(basename "$f" .tir | sed -E 's/^fuzz_//')
  if "$tirc" --passes=default,plan_memory --verify-exec --seed="$seed" "$f" -o /dev/null 2>"$tmp/log"; then ok; else bad "$f: --verify-exec" "$tmp/log"; fi
done
echo "exec: $pass passed, $fail failed"
"$here/run_passes.sh" "$tirc" || fail=$((fail+1))
[ $fail -eq 0 ]
