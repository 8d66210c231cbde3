#!/usr/bin/env bash
# The Python package's tests (issue 10): pip builds and installs the wheel offline, without build
# isolation, into a fresh virtual environment of Debian's python3 (python3 on PATH may be another
# one, e.g. pyenv's), then pytest runs python/tests against the installed package and compares
# it with the native build/neurarch-trace.
#
# setup.py builds in build/, the tree scripts/setup.sh configured with -DNEURARCH_PYTHON=ON, so
# the core is compiled once for both; NEURARCH_CMAKE_BUILD_DIR= (set, empty) makes pip build in
# its own tree (build-python/cmake) as `pip install .` does for a user.
set -euo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
NEURARCH_CMAKE_BUILD_DIR="${NEURARCH_CMAKE_BUILD_DIR-$PWD/build}" \
  "$work/venv/bin/pip" install --no-index --no-build-isolation --quiet .
NEURARCH_TRACE_BIN="$PWD/build/neurarch-trace" \
  "$work/venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
