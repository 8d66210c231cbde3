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

# Fuzz smoke (issue 18): builds the libFuzzer targets with clang into build-fuzz/ and runs each for 60 s from its
# seed corpus and dictionary; a crash, a sanitizer report, a leak or an input slower than 10 s fails. Its cost on
# CI's 2 cores is measured in docs/hostile-input.md. NEURARCH_FUZZ_SECONDS=0 skips it on a local run; CI runs it.
fuzz_seconds="${NEURARCH_FUZZ_SECONDS:-60}"
if [[ -n "${CI:-}" && "$fuzz_seconds" == 0 ]]; then fuzz_seconds=60; fi
if [[ "$fuzz_seconds" != 0 ]]; then scripts/fuzz.sh "$fuzz_seconds"; fi
