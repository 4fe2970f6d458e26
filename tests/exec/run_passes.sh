#!/usr/bin/env bash
# Every golden input of tests/passes/ (NAME.tir with NAME.expected) through
# its own pipeline (its `# RUN:` --passes; the default pipeline where it has
# none) with --verify-exec: each pass is checked by running the function
# before and after it on the same seeded inputs.  tests/exec/passes.txt
# gives a test extra flags (`PATH: --arg n=4`) or skips it with the reason
# (`PATH: skip: REASON`); a skipped test that now passes is an error (the
# list must stay true).  `PATH: slow: REASON` is not run at all (too long
# for the suite: make exec-full runs them); `PATH: norun: REASON` never is.
set -u
tirc=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
conf="$here/passes.txt"
pass=0; skip=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
entry() { grep -m1 -F "$1:" "$conf" | sed -E "s|^[^:]*: *||"; }
while IFS= read -r f; do
  rel=${f#$root/}
  [ -f "${f%.tir}.expected" ] || continue
  flags=$(grep -m1 -E '^# RUN:' "$f" | sed -E 's/^# RUN:[ ]*//')
  p=$(echo "$flags" | grep -o -- '--passes=[^ ]*' || true)
  [ -z "$p" ] && p="--passes=default"
  e=$(entry "$rel")
  extra=""
  case "$e" in skip:*) ;; norun:*) skip=$((skip+1)); continue ;; slow:*) [ -z "${FULL:-}" ] && { skip=$((skip+1)); continue; } ;; *) extra=$e ;; esac
  # shellcheck disable=SC2086
  (cd "$(dirname "$f")" && timeout ${TIMEOUT:-20} "$tirc" $p --verify-exec $extra "$(basename "$f")" -o /dev/null) 2>"$tmp/err"; rc=$?
  case "$e" in
    slow:*)
      if [ $rc -eq 0 ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL $rel (slow, exit $rc):"; head -n 12 "$tmp/err"; fi ;;
    skip:*)
      if [ $rc -eq 0 ]; then fail=$((fail+1)); echo "FAIL $rel: listed as skipped ($e) but verifies now"
      else skip=$((skip+1)); fi ;;
    *)
      if [ $rc -eq 0 ]; then pass=$((pass+1))
      else fail=$((fail+1)); echo "FAIL $rel (exit $rc):"; head -n 12 "$tmp/err"; fi ;;
  esac
done < <(find "$root/passes" -name '*.tir' | sort)
echo "exec-passes: $pass verified by running, $skip skipped (tests/exec/passes.txt says why), $fail failed"
[ $fail -eq 0 ]
