#!/usr/bin/env bash
# Builds and runs every test. Ground-truth tests read ../shared/groundtruth and skip, saying so,
# when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# The pinned live reference (torch, transformers, peft; tests/reference/requirements.txt) that the
# Python-side tests run against; pip only checks it once installed.
/usr/bin/python3 -m venv .venv-reference && .venv-reference/bin/pip install -r tests/reference/requirements.txt
ctest --test-dir build --output-on-failure -j"$(nproc)"

# Python package (issue 10): pip builds the wheel offline in a fresh venv (reusing build/), then pytest.
scripts/test_python.sh
