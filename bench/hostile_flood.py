#!/usr/bin/env python3
"""Flood of worst-case requests on `neurarch-trace serve` (loopback): 200 concurrent hostile POSTs
(absurd layer counts, experts x layers, deep nesting, a 2 MB body, a batch x sequence past the work
limit, and the largest config a request may build, renamed each time so that the cache never helps),
while one client reads a cached page in a loop. Prints the statuses, the server's peak and final
resident memory, and the cached page's latency percentiles during the flood.

Usage: bench/hostile_flood.py [BUILD_DIR] [ROUNDS]   (docs/hostile-input.md has the figures)"""
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 1
work = tempfile.mkdtemp()
server = subprocess.Popen([os.path.join(build, "neurarch-trace"), "serve", "--port", "0", "--db",
                           os.path.join(work, "flood.db"), "--rate-limit", "1000000"],
                          stderr=subprocess.PIPE, text=True)
port = None
for line in server.stderr:
    m = re.search(r"http://127\.0\.0\.1:(\d+)", line)
    if m:
        port = int(m.group(1))
        break
assert port, "the server did not start"
threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()


def memory():
    fields = dict(l.split(":", 1) for l in open(f"/proc/{server.pid}/status") if ":" in l)
    return int(fields["VmRSS"].split()[0]) // 1024, int(fields["VmHWM"].split()[0]) // 1024


def request(method, path, body=None):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        c.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
        r = c.getresponse()
        r.read()
        return r.status
    except (ConnectionError, http.client.HTTPException):
        return "closed"
    finally:
        c.close()


deep = '{"model_type": "gpt2", "x": ' + "[" * 5000 + "]" * 5000 + "}"
hostile = [
    '{"config": {"model_type": "llama", "num_hidden_layers": 100000000}}',
    '{"config": {"model_type": "mixtral", "num_hidden_layers": 2048, "num_local_experts": 4096}}',
    '{"config": {"model_type": "wav2vec2", "conv_dim": [' + ",".join(["512"] * 20000) + "]}}",
    '{"model": "gpt2", "seq": 1048576, "batch": 65536}',
    '{"config": ' + deep + "}",
    '{"config": {"model_type": "gpt2", "pad": "' + "x" * (2 << 20) + '"}}',
]
largest = {"model_type": "llama", "num_hidden_layers": 4096, "hidden_size": 64, "intermediate_size": 64,
           "num_attention_heads": 1, "vocab_size": 64, "max_position_embeddings": 64}

assert request("GET", "/models/gpt2") == 200  # warm the cached page
rss0, _ = memory()
statuses, latencies, stop = {}, [], threading.Event()


def reader():
    while not stop.is_set():
        t = time.perf_counter()
        assert request("GET", "/models/gpt2") == 200
        latencies.append(time.perf_counter() - t)


def attacker(i):
    if i % 7 == 6:
        body = json.dumps({"config": largest, "name": f"largest {i} {time.time()}"})
    else:
        body = hostile[i % 7 % len(hostile)]
    s = request("POST", "/api/v1/plan", body)
    statuses[s] = statuses.get(s, 0) + 1


peak = [0]


def sampler():
    while not stop.is_set():
        peak[0] = max(peak[0], memory()[0])
        time.sleep(0.01)


side = [threading.Thread(target=reader), threading.Thread(target=sampler)]
for t in side:
    t.start()
start = time.perf_counter()
for _ in range(rounds):
    attackers = [threading.Thread(target=attacker, args=(i,)) for i in range(200)]
    for t in attackers:
        t.start()
    for t in attackers:
        t.join()
elapsed = time.perf_counter() - start
stop.set()
for t in side:
    t.join()
rss1, hwm = memory()
server.terminate()
server.wait()
latencies.sort()
pct = lambda p: 1000 * latencies[min(len(latencies) - 1, int(p * len(latencies)))]
print(f"{200 * rounds} hostile POSTs in {elapsed:.2f} s; statuses {dict(sorted(statuses.items(), key=str))}")
print(f"resident memory: {rss0} MB before, {peak[0]} MB peak (sampled), {hwm} MB high-water mark, {rss1} MB after")
print(f"cached page during the flood: {len(latencies)} requests, p50 {pct(0.5):.1f} ms, p99 {pct(0.99):.1f} ms, "
      f"max {1000 * latencies[-1]:.1f} ms")
