#!/usr/bin/env bash
# run_parallel.sh TIRC SCRIPT... - the corpus scripts run side by side (each
# is mostly one core: TVM's parser, tirc, gcc), their outputs printed in
# order once all are done; fails if any failed.
set -u
tirc=$1; shift
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pids=(); i=0
for s in "$@"; do
  python3 "$s" "$tirc" >"$tmp/$i.out" 2>"$tmp/$i.err" & pids+=($!); i=$((i+1))
done
rc=0; i=0
for p in "${pids[@]}"; do
  wait "$p" || { rc=1; grep -v "Warning" "$tmp/$i.err" | tail -20; }
  cat "$tmp/$i.out"; i=$((i+1))
done
exit $rc
