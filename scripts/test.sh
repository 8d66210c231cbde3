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

# Fuzz smoke (issue 18): builds the libFuzzer targets with clang into build-fuzz/ and runs each for
# NEURARCH_FUZZ_SECONDS (e.g. 60) from its seed corpus and dictionary with a fixed seed; a crash, a sanitizer
# report, a leak or an input slower than 10 s fails. Off unless set: the instrumented build (every src/ file
# again, with clang) has not yet been timed on CI's cold 2 cores (docs/hostile-input.md estimates ~15 min).
fuzz_seconds="${NEURARCH_FUZZ_SECONDS:-0}"
if [[ "$fuzz_seconds" != 0 ]]; then scripts/fuzz.sh "$fuzz_seconds"; fi
