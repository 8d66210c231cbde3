#!/usr/bin/env bash
# Builds the command line (only it, installing only what it needs) if needed, then runs
# neurarch-trace with the given arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --cli >&2
exec build/neurarch-trace "$@"
