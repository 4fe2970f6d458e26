#!/bin/sh
# chunked_read.sh TIRC - the reader's chunked parse (src/script/reader_chunk.c)
# against its whole parse: every .tir under tests/ and examples/ (and tests/cli/chunk/,
# written for it: scopes spanning chunks, an ir_module, the root block's
# body, errors in later chunks) is read whole and read in chunks of one
# byte (TIR_READ_CHUNK_BYTES=1: a chunk ends after every compound
# statement of every function body) and printed back (the printer is
# faithful: the round-trip tests).
# The two must agree: the same exit status and output; on an error, every
# diagnostic of the whole read is in the chunked read's (which reads the
# chunks before a later chunk's syntax error, so it may say more).
# A program read without error must also print to a fixpoint: its print,
# read again (whole), prints the same text (a print that does not read
# back, or reads back as another program, is a silent change).
TIRC=${1:?usage: chunked_read.sh TIRC}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
pass=0 fail=0
# the construct corpus (2,049 texts; constructs.py reads every eighth in make
# test): every eighth one here, all with FULL=1 (make sweep-full)
k=0
for f in $(find "$ROOT/tests" "$ROOT/examples" -name '*.tir' | sort); do
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
  for emit in tir; do
    TIR_READ_CHUNK_BYTES=100000000 "$TIRC" --emit=$emit "$f" >"$TMP/w.out" 2>"$TMP/w.err"
    wrc=$?
    TIR_READ_CHUNK_BYTES=1 "$TIRC" --emit=$emit "$f" >"$TMP/c.out" 2>"$TMP/c.err"
    crc=$?
    ok=1
    if [ $wrc -ne $crc ] || ! cmp -s "$TMP/w.out" "$TMP/c.out"; then
      ok=0
    elif [ $wrc -ne 0 ]; then
      grep 'error:' "$TMP/w.err" | sort >"$TMP/w.e"
      grep 'error:' "$TMP/c.err" | sort >"$TMP/c.e"
      [ -z "$(comm -23 "$TMP/w.e" "$TMP/c.e")" ] || ok=0
    elif ! cmp -s "$TMP/w.err" "$TMP/c.err"; then
      ok=0
    elif ! "$TIRC" --emit=$emit "$TMP/w.out" >"$TMP/r.out" 2>"$TMP/r.err" || ! cmp -s "$TMP/w.out" "$TMP/r.out"; then
      ok=0
      echo "FAIL chunked_read: ${f#$ROOT/}: its print does not print back the same"
      head -5 "$TMP/r.err"
      diff "$TMP/w.out" "$TMP/r.out" | head -10
    fi
    if [ $ok = 1 ]; then
      pass=$((pass + 1))
    else
      fail=$((fail + 1))
      echo "FAIL chunked_read: ${f#$ROOT/} --emit=$emit (exit $wrc whole, $crc chunked)"
      diff "$TMP/w.out" "$TMP/c.out" | head -10
      diff "$TMP/w.err" "$TMP/c.err" | head -10
    fi
  done
done
echo "chunked-read: $pass passed, $fail failed"
[ $fail -eq 0 ]
