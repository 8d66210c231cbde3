#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-fuzz/ and runs each for SECONDS (default 60) from
# its committed seed corpus and dictionary. A crash, a sanitizer report, a leak, an input slower than
# 10 s or a run that does not stop fails it. New inputs go to build-fuzz/corpus/, never into fuzz/corpus/.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(config_fuzzer safetensors_fuzzer server_fuzzer track_fuzzer)
clang="${NEURARCH_FUZZ_CLANG:-$(command -v clang++-14 || command -v clang++)}"
jobs="${NEURARCH_FUZZ_JOBS:-$(nproc)}"

start=$(date +%s)
if [ ! -f build-fuzz/build.ninja ]; then
  cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Fuzz -DCMAKE_CXX_COMPILER="$clang" \
    -DNEURARCH_FUZZ=ON -DNEURARCH_BUILD_TESTS=OFF -DNEURARCH_BUILD_BENCH=OFF >/dev/null
fi
cmake --build build-fuzz -j"$jobs" --target "${targets[@]}"
echo "fuzz: build took $(($(date +%s) - start)) s"

for target in "${targets[@]}"; do
  name="${target%_fuzzer}"
  mkdir -p "build-fuzz/corpus/$name" "build-fuzz/artifacts/$name"
  echo "fuzz: $target for ${seconds} s"
  # The outer timeout catches what libFuzzer's own -timeout cannot (a run wedged outside an input).
  # A fixed seed makes the smoke run reproducible: a slower machine runs a prefix of the same inputs.
  timeout $((seconds + 300)) "build-fuzz/fuzz/$target" -seed="${NEURARCH_FUZZ_SEED:-1}" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
    -dict="fuzz/dict/$name.dict" -artifact_prefix="build-fuzz/artifacts/$name/" \
    "build-fuzz/corpus/$name" "fuzz/corpus/$name" 2>"build-fuzz/$target.log" ||
    { tail -n 60 "build-fuzz/$target.log"; echo "fuzz: $target failed (input under build-fuzz/artifacts/$name/)"; exit 1; }
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build-fuzz/$target.log" | sed "s/^/fuzz: $target /"
done
