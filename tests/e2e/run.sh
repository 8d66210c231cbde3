#!/usr/bin/env bash
# ctest entry for the browser test: starts `neurarch-trace serve` on a free loopback port with a
# fresh database, runs e2e.mjs in headless Chromium against it, and always stops the server.
# Usage: run.sh NEURARCH_TRACE_BINARY OUTPUT_DIR
set -euo pipefail
binary=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
rm -f "$out/e2e.db" "$out/e2e.db-wal" "$out/e2e.db-shm" "$out/server.log"

# Port 0: the server picks a free port and says which on its first line.
"$binary" serve --host 127.0.0.1 --port 0 --db "$out/e2e.db" 2>"$out/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT

url=""
for _ in $(seq 1 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$out/server.log" || true)
  [[ -n "$url" ]] && break
  kill -0 "$server" 2>/dev/null || { echo "e2e: the server exited:"; cat "$out/server.log"; exit 1; }
  sleep 0.1
done
[[ -n "$url" ]] || { echo "e2e: the server did not start"; cat "$out/server.log"; exit 1; }

node "$here/e2e.mjs" "$url" "$out"
