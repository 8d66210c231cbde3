#!/usr/bin/env bash
# The Python package's tests (issues 10 and 22): pip builds the wheel offline, without build
# isolation, with Debian's python3 (python3 on PATH may be another one, e.g. pyenv's), and setup.py
# repairs it with auditwheel (from .venv-reference/, which scripts/test.sh installs from
# tests/reference/requirements.txt) into a manylinux wheel that carries its shared libraries. Then:
#   1. the wheel is manylinux (auditwheel show) and its installed extension resolves every library
#      but glibc's and the C++ runtime's to the copies inside the wheel (ldd);
#   2. pytest runs python/tests against the installed package, comparing it with the native
#      build/neurarch-trace, with Debian's copies of those libraries hidden: LD_LIBRARY_PATH names a
#      folder of stand-ins with their sonames and no symbols, so any lookup of a Debian copy fails;
#      the plain (unrepaired) extension must fail to import there, or the hiding proves nothing.
#
# setup.py builds in build/, the tree scripts/setup.sh configured with -DNEURARCH_PYTHON=ON, so
# the core is compiled once for both; NEURARCH_CMAKE_BUILD_DIR= (set, empty) makes pip build in
# its own tree (build-python/cmake) as `pip install .` does for a user.
set -euo pipefail
cd "$(dirname "$0")/.."

auditwheel=.venv-reference/bin/auditwheel
if [[ ! -x $auditwheel ]]; then
  echo "test_python: no $auditwheel (scripts/test.sh installs tests/reference/requirements.txt into .venv-reference/)" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tree="${NEURARCH_CMAKE_BUILD_DIR-$PWD/build}"
NEURARCH_CMAKE_BUILD_DIR="$tree" NEURARCH_AUDITWHEEL="$PWD/$auditwheel" \
  /usr/bin/python3 -m pip wheel --no-deps --no-index --no-build-isolation --quiet --wheel-dir "$work/dist" .
wheel=$(echo "$work"/dist/*.whl)
echo "test_python: built $(basename "$wheel") ($(du -k "$wheel" | cut -f1) KiB)"
shown=$("$auditwheel" show "$wheel")
tr '\n' ' ' <<< "$shown" | grep -q 'is consistent with the following platform tag: "manylinux_' \
  || { echo "$shown"; echo "test_python: the wheel is not manylinux" >&2; exit 1; }

/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install --no-deps --no-index --quiet "$wheel"
native=$(echo "$work"/venv/lib/python3*/site-packages/neurarch/_native*.so)
libs=$(echo "$work"/venv/lib/python3*/site-packages/neurarch_trace.libs)
# What every manylinux policy lets a wheel take from the system: glibc's libraries, the C++ and GCC
# runtimes, zlib (auditwheel leaves these out of the wheel).
system='^(libc|libm|libstdc\+\+|libgcc_s|ld-linux-x86-64|libpthread|libdl|librt|libresolv|libnsl|libutil|libz)\.so'
libs=$(realpath "$libs")
outside=$(ldd "$native" | awk '$2 == "=>" {print $1, $3}' | grep -Ev "$system" |
          while read -r soname path; do [[ $(realpath "$path") == "$libs"/* ]] || echo "$soname $path"; done)
if [[ -n $outside ]]; then
  echo "test_python: the installed extension loads libraries from outside the wheel:" >&2
  echo "$outside" >&2
  exit 1
fi
echo "test_python: the extension loads $(ls "$libs" | wc -l) libraries from the wheel, the rest is glibc, the C++ runtime and zlib"

# Stand-ins for every library the plain extension (built above, before its repair) names as
# needed, beyond glibc and the C++ runtime (and whatever the interpreter itself loads): same soname,
# no symbols. The libraries those need in turn are checked above (ldd) instead.
plain=$(echo "${tree:-build-python/cmake}"/python/neurarch/_native*.so)
mkdir "$work/hidden"
echo 'int neurarch_stand_in;' > "$work/stand_in.c"
interpreter=$(ldd /usr/bin/python3 | awk '$2 == "=>" {print $1}')
for soname in $(readelf -d "$plain" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | grep -Ev "$system"); do
  grep -qxF "$soname" <<< "$interpreter" && continue
  cc -shared -Wl,-soname,"$soname" -o "$work/hidden/$soname" "$work/stand_in.c"
done
echo "test_python: hiding $(ls "$work/hidden" | tr '\n' ' ')"
mkdir -p "$work/plain/neurarch"
cp python/neurarch/*.py "$plain" "$work/plain/neurarch/"
PYTHONPATH="$work/plain" /usr/bin/python3 -c 'import neurarch'  # the plain package imports as built, and not with its libraries hidden
if LD_LIBRARY_PATH="$work/hidden" PYTHONPATH="$work/plain" /usr/bin/python3 -c 'import neurarch' 2>/dev/null; then
  echo "test_python: the plain extension imports with its libraries hidden: the hiding does not work" >&2
  exit 1
fi

# The native command line the tests compare with must not see the stand-ins.
printf '#!/bin/sh\nunset LD_LIBRARY_PATH\nexec "%s" "$@"\n' "$PWD/build/neurarch-trace" > "$work/neurarch-trace"
chmod +x "$work/neurarch-trace"
LD_LIBRARY_PATH="$work/hidden" NEURARCH_TRACE_BIN="$work/neurarch-trace" \
  "$work/venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
