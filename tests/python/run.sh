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
# the library's other two places: on the library path, and next to the package
probe='import tirc; assert "def relu" in tirc.transform(open("'"$root"'/examples/relu.tir").read(), passes=""); print(tirc.library_path)'
got=$(env -u TIRC_LIB LD_LIBRARY_PATH="$root/build/lib" PYTHONPATH="$tmp/site" python3 -c "$probe" 2>&1)
[ "$got" = "libtir.so.0" ] || { echo "FAIL python: libtir.so.0 on the library path not found: $got"; rc=1; }
cp -r "$root/python" "$tmp/pkg" && rm -rf "$tmp/pkg/build" "$tmp/pkg"/*.egg-info && cp "$root/build/lib/libtir.so.0" "$tmp/pkg/tirc/" &&
  python3 -m pip install -q --no-build-isolation --no-deps --target "$tmp/site2" "$tmp/pkg" >"$tmp/pip2.log" 2>&1 ||
  { echo "FAIL python: pip install with the library inside"; tail -n 5 "$tmp/pip2.log"; rc=1; }
got=$(env -u TIRC_LIB -u LD_LIBRARY_PATH PYTHONPATH="$tmp/site2" python3 -c "$probe" 2>&1)
[ "$got" = "$tmp/site2/tirc/libtir.so.0" ] || { echo "FAIL python: the library next to the package not used: $got"; rc=1; }
tail -n 1 "$tmp/out" | sed 's/^/python: /'
[ $rc -eq 0 ] || cat "$tmp/out"
exit $rc
