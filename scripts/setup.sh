#!/usr/bin/env bash
# Installs the Debian packages neurarch builds with (when missing) and builds it into build/.
# Warnings are errors here, as in CI.
#
#   scripts/setup.sh          everything the tests need: the command line, the test suite, the
#                             benchmarks, the Python module, the browser test's npm packages
#   scripts/setup.sh --cli    only what `neurarch-trace` needs (scripts/run.sh): the core packages
#                             and the one target, so a fresh clone's first report comes quickly
set -euo pipefail
cd "$(dirname "$0")/.."

cli_only=false
[[ "${1-}" == "--cli" ]] && cli_only=true

# The command line links the Hub client (libcurl), the server (cpp-httplib), the change tracker
# (libgit2) and the SQLite stores, so these are needed even for a single report.
packages=(cmake ninja-build g++ pkg-config nlohmann-json3-dev libcli11-dev libfmt-dev libcurl4-openssl-dev
          libcpp-httplib-dev libsqlite3-dev libgit2-dev)
if ! $cli_only; then
  packages+=(libgtest-dev libgmock-dev libbenchmark-dev)
  packages+=(chromium nodejs wrk)  # server and browser tests
  packages+=(clang-14 libclang-rt-14-dev)  # libFuzzer targets, scripts/fuzz.sh
  command -v npm >/dev/null || packages+=(npm)  # NodeSource's nodejs ships npm; Debian's is separate
  packages+=(python3-dev python3-venv python3-pip python3-setuptools python3-wheel python3-pybind11 pybind11-dev
             python3-pytest python3-pandas)  # Python package
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if $cli_only; then
  # Configured once; later runs go straight to ninja, which re-runs CMake itself when a CMakeLists
  # changes, so a second run starts in well under a second.
  if [[ ! -f build/build.ninja ]]; then
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNEURARCH_WERROR=ON \
      -DNEURARCH_BUILD_TESTS=OFF -DNEURARCH_BUILD_BENCH=OFF >/dev/null
  fi
  cmake --build build -j"$(nproc)" --target neurarch-trace
  exit 0
fi

# The browser test's npm packages, pinned by tests/e2e/package-lock.json, fetched once.
if [[ ! -d tests/e2e/node_modules ]]; then (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error); fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNEURARCH_WERROR=ON -DNEURARCH_BUILD_TESTS=ON \
  -DNEURARCH_BUILD_BENCH=ON -DNEURARCH_PYTHON=ON -DPython_EXECUTABLE=/usr/bin/python3 >/dev/null
cmake --build build -j"$(nproc)"
