#!/usr/bin/env bash
# Installs the Debian packages neurarch builds with (when missing) and builds it into build/.
# Warnings are errors here, as in CI.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ pkg-config nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev libbenchmark-dev libcurl4-openssl-dev libcpp-httplib-dev libsqlite3-dev)

packages+=(chromium nodejs wrk)  # server and browser tests (issue 6)
command -v npm >/dev/null || packages+=(npm)  # NodeSource's nodejs ships npm; Debian's is separate

packages+=(libgit2-dev)  # change tracker (issue 7)

packages+=(clang-14)  # libFuzzer targets, scripts/fuzz.sh (issue 18)

packages+=(python3-dev python3-venv python3-pip python3-setuptools python3-wheel python3-pybind11 pybind11-dev python3-pytest python3-pandas)  # Python package (issue 10)

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

# The browser test's npm packages, pinned by tests/e2e/package-lock.json, fetched once.
if [[ ! -d tests/e2e/node_modules ]]; then (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error); fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNEURARCH_WERROR=ON -DNEURARCH_PYTHON=ON -DPython_EXECUTABLE=/usr/bin/python3 >/dev/null
cmake --build build -j"$(nproc)"
