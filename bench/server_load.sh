#!/usr/bin/env bash
# Load benchmark of `neurarch-trace serve` on loopback with wrk: a cached model page, and a fresh
# POST /api/v1/plan (every request a cache miss). Prints requests/s and latency percentiles.
# Usage: bench/server_load.sh [BUILD_DIR] [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
seconds=${2:-10}
connections=${3:-16}
command -v wrk >/dev/null || { echo "needs wrk (apt-get install wrk)"; exit 1; }
work=$(mktemp -d)
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$work"' EXIT

# The rate limit is lifted: this measures the server, not its protection.
"$build/neurarch-trace" serve --port 0 --db "$work/bench.db" --rate-limit 1000000 2>"$work/server.log" &
server=$!
for _ in $(seq 1 100); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/server.log" || true)
  [[ -n "$url" ]] && break
  sleep 0.1
done
[[ -n "$url" ]] || { cat "$work/server.log"; exit 1; }

page="$url/models/TinyLlama/TinyLlama-1.1B-Chat-v1.0"
curl -fsS "$page" >/dev/null  # warm the plan cache: the page below is a hot one

echo "== cached page: GET /models/TinyLlama/TinyLlama-1.1B-Chat-v1.0 (${connections} connections, ${seconds}s)"
wrk -t2 -c"$connections" -d"${seconds}s" --latency "$page" | grep -E "Requests/sec|Latency|50%|90%|99%|Non-2xx"

echo "== fresh plan: POST /api/v1/plan with the TinyLlama config, every request a cache miss"
wrk -t2 -c"$connections" -d"${seconds}s" --latency -s bench/server_fresh_plan.lua "$url" -- \
  data/catalogue/TinyLlama--TinyLlama-1.1B-Chat-v1.0.json | grep -E "Requests/sec|Latency|50%|90%|99%|Non-2xx"
