#!/usr/bin/env bash
# Builds and runs every test. Ground-truth tests read ../shared/groundtruth and skip, saying so,
# when it is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/reference_venv.sh  # the live reference's pinned transformers / PyTorch / peft, installed once
ctest --test-dir build --output-on-failure -j"$(nproc)"

# Python package (issue 10): pip builds the wheel offline in a fresh venv (reusing build/), then pytest.
scripts/test_python.sh

# Fuzz smoke (issue 18): every libFuzzer target for 60 s from its seed corpus; a crash or a hang fails.
scripts/fuzz.sh "${NEURARCH_FUZZ_SECONDS:-60}"
