#!/usr/bin/env bash
# Run every Check unit-test binary given; print a summary line; fail on any failure.
set -u
pass=0; fail=0; failed=()
for t in "$@"; do
  if [ -n "${VALGRIND:-}" ]; then
    out=$(CK_FORK=no valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite "$t" 2>&1); rc=$?
  else
    out=$("$t" 2>&1); rc=$?
  fi
  echo "$out" | grep -E '^[0-9]+%: Checks' | sed "s|^|$(basename "$t"): |"
  if [ $rc -eq 0 ]; then pass=$((pass+1)); else fail=$((fail+1)); failed+=("$t"); echo "$out" | tail -n 30; fi
done
echo "unit: $pass passed, $fail failed"
[ $fail -eq 0 ] || { printf 'failed: %s\n' "${failed[@]}"; exit 1; }
