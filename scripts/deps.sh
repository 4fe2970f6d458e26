#!/usr/bin/env bash
# Install everything tirc needs on Debian 12 (as root, or with sudo).
# Safe to run twice.
set -euo pipefail
SUDO=
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
pkgs="libtree-sitter-dev libisl-dev libjansson-dev check pkg-config valgrind python3 python3-pip"
missing=
for p in $pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
# apache-tvm: the oracle for tests and benchmarks, never a runtime dependency
# pytest and wheel: the Python package's tests (pip install ./python, offline)
if ! python3 -c "import pytest, wheel" >/dev/null 2>&1; then
  python3 -m pip install --quiet pytest wheel || python3 -m pip install --quiet --break-system-packages pytest wheel
fi
if ! python3 -c 'import tvm' >/dev/null 2>&1; then
  python3 -m pip install --quiet apache-tvm || python3 -m pip install --quiet --break-system-packages apache-tvm
fi
"$(dirname "$0")/fetch-grammar.sh"
