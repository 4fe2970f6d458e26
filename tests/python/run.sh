#!/usr/bin/env bash
# The Python package: pip install ./python into a scratch folder (as a user
# would, offline), then its pytest suite against build/lib/libtir.so, with
# the TVM pipeline test when apache-tvm is installed.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp" "$root/python/build" "$root"/python/*.egg-info' EXIT
if ! python3 -c 'import pytest, wheel' >/dev/null 2>&1; then echo "python: pytest/wheel not installed (make deps): skipped"; exit 0; fi
if ! python3 -m pip install -q --no-build-isolation --no-deps --target "$tmp/site" "$root/python" >"$tmp/pip.log" 2>&1; then
  echo "FAIL python: pip install ./python"; tail -n 20 "$tmp/pip.log"; exit 1
fi
cd "$tmp" && TIRC_LIB="$root/build/lib/libtir.so" PYTHONPATH="$tmp/site" python3 -m pytest -q -p no:cacheprovider "$root/python/tests" >"$tmp/out" 2>&1
rc=$?
tail -n 1 "$tmp/out" | sed 's/^/python: /'
[ $rc -eq 0 ] || cat "$tmp/out"
exit $rc
