#!/usr/bin/env bash
# Hostile inputs (issue 11): each NAME.tir states its outcome in its header:
#   # EXPECT: error LINE:COL TEXT   tirc exits 1 with exactly one error, at
#                                   NAME.tir:LINE:COL, whose message holds TEXT
#   # EXPECT: warning LINE:COL TEXT tirc exits 0 with exactly one warning (and
#                                   no error) at NAME.tir:LINE:COL holding
#                                   TEXT, and its C compiles
#   # EXPECT: ok                    tirc --emit=c exits 0, the C compiles with
#                                   gcc -O2 -Wall -Wextra -Werror, and, where
#                                   NAME_main.c is beside it, links with it and
#                                   runs to exit 0 (it checks the answer);
#                                   --emit=cuda compiles with nvcc -Werror
#                                   (with FLAGS --emit=cuda: only that;
#                                   without, only where the header's
#                                   comments name CUDA or nvcc, all with
#                                   FULL=1: make hostile-full)
# `# FLAGS: ...` replaces the tirc flags (default --emit=c).  Each
# `# EXPECT-C: TEXT` line (with ok) must appear verbatim in the output;
# `# NVCC: FLAGS` adds nvcc flags (-rdc=true where a kernel calls an extern).  Each run is
# limited to 20 s: a hang is a failure.
set -u
tirc=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
bad() { fail=$((fail+1)); echo "FAIL hostile/$1"; [ -f "${2:-}" ] && head -n 12 "$2"; return 0; }
have_nvcc=0; command -v nvcc >/dev/null 2>&1 && have_nvcc=1
for f in "$here"/*.tir; do
  name=$(basename "$f" .tir)
  expect=$(grep -m1 -E '^# EXPECT: ' "$f" | sed -E 's/^# EXPECT: //')
  flags=$(grep -m1 -E '^# FLAGS: ' "$f" | sed -E 's/^# FLAGS: //'); [ -n "$flags" ] || flags="--emit=c"
  nvflags=$(grep -m1 -E '^# NVCC: ' "$f" | sed -E 's/^# NVCC: //')
  # shellcheck disable=SC2086
  (cd "$here" && timeout 20 "$tirc" $flags "$name.tir" -o "$tmp/$name.c" 2>"$tmp/$name.err"); rc=$?
  case "$expect" in
    error*)
      at=$(echo "$expect" | awk '{print $2}'); text=$(echo "$expect" | cut -d' ' -f3-)
      n=$(grep -c ': error: ' "$tmp/$name.err")
      if [ $rc -ne 1 ]; then bad "$name: exit $rc, expected 1" "$tmp/$name.err"
      elif [ "$n" -ne 1 ]; then bad "$name: $n errors, expected one" "$tmp/$name.err"
      elif ! grep -q -F -- "$name.tir:$at: error: " "$tmp/$name.err" || ! grep -q -F -- "$text" "$tmp/$name.err"; then
        bad "$name: expected $name.tir:$at: error: ...$text..." "$tmp/$name.err"
      else pass=$((pass+1)); fi ;;
    warning*)
      at=$(echo "$expect" | awk '{print $2}'); text=$(echo "$expect" | cut -d' ' -f3-)
      n=$(grep -c ': warning: ' "$tmp/$name.err"); ne=$(grep -c ': error: ' "$tmp/$name.err")
      if [ $rc -ne 0 ]; then bad "$name: exit $rc, expected 0" "$tmp/$name.err"
      elif [ "$n" -ne 1 ] || [ "$ne" -ne 0 ]; then bad "$name: $n warnings and $ne errors, expected one warning" "$tmp/$name.err"
      elif ! grep -q -F -- "$name.tir:$at: warning: " "$tmp/$name.err" || ! grep -q -F -- "$text" "$tmp/$name.err"; then
        bad "$name: expected $name.tir:$at: warning: ...$text..." "$tmp/$name.err"
      elif ! gcc -std=c11 -O2 -Wall -Wextra -Werror -c "$tmp/$name.c" -o "$tmp/$name.o" >"$tmp/$name.cc" 2>&1; then bad "$name: C does not compile" "$tmp/$name.cc"
      else pass=$((pass+1)); fi ;;
    ok)
      if [ $rc -ne 0 ]; then bad "$name: exit $rc, expected 0" "$tmp/$name.err"; continue; fi
      missing=$(grep -E '^# EXPECT-C: ' "$f" | sed -E 's/^# EXPECT-C: //' | while IFS= read -r want; do
        grep -q -F -- "$want" "$tmp/$name.c" || echo "$want"; done)
      if [ -n "$missing" ]; then bad "$name: output lacks: $missing" "$tmp/$name.c"; continue; fi
      if [[ "$flags" == *--emit=cuda* ]]; then
        if [ $have_nvcc = 0 ]; then pass=$((pass+1)); continue; fi
        cp "$tmp/$name.c" "$tmp/$name.cu"
        if nvcc -arch=sm_90 $nvflags -Werror all-warnings -c "$tmp/$name.cu" -o "$tmp/$name.cu.o" >"$tmp/$name.nv" 2>&1; then pass=$((pass+1))
        else bad "$name: CUDA does not compile" "$tmp/$name.nv"; fi
        continue
      fi
      main="$here/${name}_main.c"
      if [ -f "$main" ]; then
        if ! gcc -std=c11 -O2 -Wall -Wextra -Werror "$tmp/$name.c" "$main" -o "$tmp/$name.bin" -lm >"$tmp/$name.cc" 2>&1; then bad "$name: C does not compile" "$tmp/$name.cc"
        elif ! timeout 20 "$tmp/$name.bin" >"$tmp/$name.run" 2>&1; then bad "$name: wrong answer" "$tmp/$name.run"
        else pass=$((pass+1)); fi
      elif ! gcc -std=c11 -O2 -Wall -Wextra -Werror -c "$tmp/$name.c" -o "$tmp/$name.o" >"$tmp/$name.cc" 2>&1; then bad "$name: C does not compile" "$tmp/$name.cc"
      else pass=$((pass+1)); fi
      # its CUDA too, built by nvcc where its header names CUDA or nvcc
      # (about a second each: every one with FULL=1, make hostile-full)
      if [ -z "${FULL:-}" ] && ! grep -E '^#' "$f" | grep -q -i -E 'cuda|nvcc'; then continue; fi
      if [ $have_nvcc = 1 ] && (cd "$here" && timeout 20 "$tirc" --emit=cuda "$name.tir" -o "$tmp/$name.cu" 2>/dev/null); then
        nvcc -arch=sm_80 $nvflags -Werror all-warnings -c "$tmp/$name.cu" -o "$tmp/$name.cu.o" >"$tmp/$name.nv" 2>&1 || bad "$name: CUDA does not compile" "$tmp/$name.nv"
      fi ;;
    *) bad "$name: no '# EXPECT:' line" ;;
  esac
done
echo "hostile: $pass passed, $fail failed"
[ $fail -eq 0 ]
