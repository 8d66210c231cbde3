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

# Fuzz smoke (issue 18): every libFuzzer target for NEURARCH_FUZZ_SECONDS from its seed corpus; a crash or a
# hang fails. Opt-in until the clang build of the whole tree has been timed within CI's budget: it has only been
# built in part (docs/hostile-input.md), and an unmeasured 400-file sanitizer build must not decide a landing.
if [[ -n "${NEURARCH_FUZZ_SECONDS:-}" ]]; then scripts/fuzz.sh "$NEURARCH_FUZZ_SECONDS"; fi
