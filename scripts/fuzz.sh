#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-fuzz/ and runs them from their committed seed
# corpus and dictionary. A crash, a sanitizer report, a leak, an input slower than 10 s or a run that
# does not stop fails it. New inputs go under build-fuzz/, never into fuzz/corpus/.
#   scripts/fuzz.sh smoke [TARGET...]  CI's step: each target for the number of inputs fuzz/smoke.txt
#                                      gives it, from an empty working corpus and a fixed seed, so any
#                                      machine runs exactly the inputs the last green run did
#   scripts/fuzz.sh [SECONDS] [TARGET...]   offline: each target for SECONDS (default 60), growing
#                                      build-fuzz/corpus/
set -euo pipefail
cd "$(dirname "$0")/.."
smoke=false
seconds=60
if [[ "${1-}" == smoke ]]; then
  smoke=true
  shift
elif [[ $# -gt 0 ]]; then
  seconds="$1"
  shift
fi
targets=("$@")
declare -A smoke_runs=()
if $smoke; then
  listed=()
  while read -r target runs _; do
    [[ -z "$target" || "$target" == \#* ]] && continue
    smoke_runs[$target]=$runs
    listed+=("$target")
  done <fuzz/smoke.txt
  [ ${#targets[@]} -gt 0 ] || targets=("${listed[@]}")
fi
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
  corpus="build-fuzz/corpus/$name"
  limit=(-max_total_time="$seconds")
  if $smoke; then
    # An empty working corpus each time: what the fuzzer mutates then depends only on the seeds, the
    # dictionary and -seed, never on what an earlier run found. The time limit only guards a machine
    # far slower than CI's; within it the run stops after exactly its number of inputs.
    corpus="build-fuzz/smoke/$name"
    rm -rf "$corpus"
    limit=(-runs="${smoke_runs[$target]}" -max_total_time=900)
  fi
  mkdir -p "$corpus" "build-fuzz/artifacts/$name"
  echo "fuzz: $target ${limit[*]}"
  # The outer timeout catches what libFuzzer's own -timeout cannot (a run wedged outside an input).
  # A fixed seed makes a run reproducible: the same inputs, in the same order, on any machine.
  start_target=$(date +%s)
  timeout 1200 "build-fuzz/fuzz/$target" -seed="${NEURARCH_FUZZ_SEED:-1}" "${limit[@]}" \
    -timeout=10 -rss_limit_mb=2560 -print_final_stats=1 \
    -dict="fuzz/dict/$name.dict" -artifact_prefix="build-fuzz/artifacts/$name/" \
    "$corpus" "fuzz/corpus/$name" 2>"build-fuzz/$target.log" ||
    { tail -n 60 "build-fuzz/$target.log"; echo "fuzz: $target failed (input under build-fuzz/artifacts/$name/)"; exit 1; }
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build-fuzz/$target.log" | sed "s/^/fuzz: $target /"
  echo "fuzz: $target took $(($(date +%s) - start_target)) s"
done
