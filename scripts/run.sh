#!/usr/bin/env bash
# Builds (if needed) and runs neurarch-trace with the given arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >&2
exec build/neurarch-trace "$@"
