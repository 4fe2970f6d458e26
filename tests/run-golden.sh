#!/usr/bin/env bash
# Golden-file runner.  Every tests/passes/**/NAME.tir holds, in its first
# lines, "# RUN: FLAGS" (the tirc flags).  It is run from its own directory as
#   tirc FLAGS NAME.tir
# and then:
#   NAME.expected  exists: stdout must equal it, and the exit status be 0;
#   NAME.err       exists: stderr must equal it, and the exit status be 1.
# A mismatch prints a unified diff.  UPDATE=1 rewrites the expected files
# (review every line before committing them).
set -u
tirc=$(realpath "$1")
root=$(cd "$(dirname "$0")" && pwd)
pass=0; fail=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
while IFS= read -r f; do
  dir=$(dirname "$f"); base=$(basename "$f" .tir)
  flags=$(grep -m1 -E '^# RUN:' "$f" | sed -E 's/^# RUN:[ ]*//')
  if ! grep -q -E '^# RUN:' "$f"; then echo "golden: $f: no '# RUN:' line"; fail=$((fail+1)); continue; fi
  runner=()
  [ -n "${VALGRIND:-}" ] && runner=(valgrind -q --error-exitcode=3 --leak-check=full --errors-for-leak-kinds=definite)
  # shellcheck disable=SC2086
  (cd "$dir" && "${runner[@]}" "$tirc" $flags "$base.tir" >"$tmp/out" 2>"$tmp/err"); rc=$?
  ok=1; why=""
  if [ -f "$dir/$base.err" ]; then
    [ -n "${UPDATE:-}" ] && cp "$tmp/err" "$dir/$base.err"
    [ $rc -eq 1 ] || { ok=0; why="exit status $rc, expected 1"; }
    if ! diff -u "$dir/$base.err" "$tmp/err" >"$tmp/diff"; then ok=0; why="$why stderr differs"; fi
  elif [ -f "$dir/$base.expected" ]; then
    [ -n "${UPDATE:-}" ] && cp "$tmp/out" "$dir/$base.expected"
    [ $rc -eq 0 ] || { ok=0; why="exit status $rc, expected 0"; cat "$tmp/err" > "$tmp/diff"; }
    if [ $ok = 1 ] && ! diff -u "$dir/$base.expected" "$tmp/out" >"$tmp/diff"; then ok=0; why="stdout differs"; fi
  else
    ok=0; why="no $base.expected or $base.err beside it"; : >"$tmp/diff"
  fi
  if [ $ok = 1 ]; then pass=$((pass+1)); else
    fail=$((fail+1)); echo "FAIL ${f#$root/}: $why"; head -n 60 "$tmp/diff"
  fi
done < <(find "$root/passes" -name '*.tir' | sort)
echo "golden: $pass passed, $fail failed"
[ $fail -eq 0 ]
