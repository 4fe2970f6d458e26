#!/usr/bin/env bash
# Every .tir the tests hold (goldens, hostile, exec, corpus seeds, examples)
# through --emit=c and --emit=cuda: tirc exits 0, or 1 with every error at
# a FILE:LINE:COL position; never a crash, a sanitizer report (make asan
# runs this with ASan+UBSan, leaks included) or an error without a place;
# the C of a run that exits 0 compiles with gcc -std=c11 -Wall -Wextra -Werror
# (a quarter of those compiled at -O2, all with FULL=1).
set -u
tirc=$(realpath "$1"); root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0; n=0
k=0
while IFS= read -r f; do
  # the construct corpus (2,049 texts): every eighth one, all with FULL=1 (make sweep-full)
  case "$f" in */corpus/constructs/*) k=$((k + 1)); [ -z "${FULL:-}" ] && [ $((k % 8)) != 0 ] && continue ;; esac
  # the sweep5 corpus (1,672 texts): every sixteenth, all with FULL=1
  case "$f" in */corpus/sweep5/*) k5=$((${k5:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k5 % 16)) != 0 ] && continue ;; esac
  # the sweep6 corpus (1,141 texts): every sixteenth, all with FULL=1
  case "$f" in */corpus/sweep6/*) k6=$((${k6:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k6 % 16)) != 0 ] && continue ;; esac
  # the sweep7 corpus (1,648 texts): every sixteenth, all with FULL=1
  case "$f" in */corpus/sweep7/*) k7=$((${k7:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k7 % 16)) != 0 ] && continue ;; esac
  # the sweep8 corpus (2,932 texts): every sixty-fourth, all with FULL=1
  case "$f" in */corpus/sweep8/*) k8=$((${k8:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k8 % 64)) != 0 ] && continue ;; esac
  # the sweep9 corpus (1,294 texts): every sixty-fourth, all with FULL=1
  case "$f" in */corpus/sweep9/*) k9=$((${k9:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k9 % 64)) != 0 ] && continue ;; esac
  # the sweep10 corpus (3,447 texts): every sixty-fourth, all with FULL=1
  case "$f" in */corpus/sweep10/*) k10=$((${k10:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k10 % 64)) != 0 ] && continue ;; esac
  # the sweep11 corpus (998 texts): every sixty-fourth, all with FULL=1
  case "$f" in */corpus/sweep11/*) k11=$((${k11:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k11 % 64)) != 0 ] && continue ;; esac
  # the sweep12 corpus (1,042 texts): every sixty-fourth, all with FULL=1
  case "$f" in */corpus/sweep12/*) k12=$((${k12:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k12 % 64)) != 0 ] && continue ;; esac
  # the sweep13 corpus (1,786 texts): every sixty-fourth, all with FULL=1
  case "$f" in */corpus/sweep13/*) k13=$((${k13:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k13 % 64)) != 0 ] && continue ;; esac
  # the sweep14 corpus (533 texts): every thirty-second, all with FULL=1
  case "$f" in */corpus/sweep14/*) k14=$((${k14:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k14 % 32)) != 0 ] && continue ;; esac
  # the sweep15 corpus (669 texts): every sixty-fourth, all with FULL=1
  case "$f" in */corpus/sweep15/*) k15=$((${k15:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k15 % 64)) != 0 ] && continue ;; esac
  # the sweep16 corpus (796 texts): every sixty-fourth, all with FULL=1
  case "$f" in */corpus/sweep16/*) k16=$((${k16:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k16 % 64)) != 0 ] && continue ;; esac
  # the sweep17 corpus (1,372 texts): every sixty-fourth, all with FULL=1
  case "$f" in */corpus/sweep17/*) k17=$((${k17:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k17 % 64)) != 0 ] && continue ;; esac
  # the sweep18 corpus (1,084 texts): every sixty-fourth, all with FULL=1
  case "$f" in */corpus/sweep18/*) k18=$((${k18:-0} + 1)); [ -z "${FULL:-}" ] && [ $((k18 % 64)) != 0 ] && continue ;; esac
  # an input refused when the parser's time budget runs out (2.7 s a run)
  # is timed by the hostile target; here it would only be timed twice more
  first=; IFS= read -r first < "$f"
  [[ "$first" == "# EXPECT: error "*"the parser gave up"* ]] && continue
  for emit in c cuda; do
    n=$((n+1))
    timeout 60 "$tirc" --emit=$emit "$f" -o "$tmp/out" 2>"$tmp/err"; rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 1 ]; then fail=$((fail+1)); echo "FAIL emit-sweep: --emit=$emit $f: exit $rc"; head -n 20 "$tmp/err"; continue; fi
    if [ -s "$tmp/err" ] && grep -E ': error: ' "$tmp/err" | grep -v -q -E '^[^ ]+:[0-9]+:[0-9]+: error: '; then
      fail=$((fail+1)); echo "FAIL emit-sweep: --emit=$emit $f: an error without a position"; grep ': error: ' "$tmp/err" | head -n 5; continue
    fi
    # the C it writes compiles warning-free (every fourth, all with FULL=1);
    # sweep10/rand_143_int8 meets a false -Woverflow of gcc 12 (clang reads it)
    if [ $emit = c ] && [ $rc = 0 ] && [[ "$f" != */sweep10/rand_143_int8.tir ]]; then
      nc=$((${nc:-0} + 1))
      if [ -n "${FULL:-}" ] || [ $((nc % 4)) = 0 ]; then
        ncc=$((${ncc:-0} + 1))
        # every fourth of them (all with FULL=1) compiled at -O2, where gcc's
        # flow-sensitive warnings live (-Wmaybe-uninitialized, -Warray-bounds)
        if [ -n "${FULL:-}" ] || [ $((ncc % 4)) = 0 ]; then copt="-O2 -c -o /dev/null"; no2=$((${no2:-0} + 1)); else copt="-fsyntax-only"; fi
        # shellcheck disable=SC2086
        if ! gcc -x c -std=c11 -Wall -Wextra -Werror $copt "$tmp/out" 2>"$tmp/gerr"; then
          fail=$((fail+1)); echo "FAIL emit-sweep: --emit=c $f: the C does not compile"; grep -m 3 'error' "$tmp/gerr"; continue
        fi
      fi
    fi
    pass=$((pass+1))
  done
done < <(cd "$root" && find tests examples -name '*.tir' | sort | sed "s|^|$root/|")
echo "emit-sweep: $pass passed, $fail failed ($n runs; ${ncc:-0} C outputs compiled with gcc -Wall -Wextra -Werror, ${no2:-0} of them at -O2)"
[ $fail = 0 ]
