"""Wall time of N traces (with --plan) of one model on 1 thread, then split over T threads.

    python python/bench/thread_scaling.py [MODEL] [N] [T]

The GIL is released inside the core, so on an otherwise idle machine with T cores the ratio
approaches T; it says nothing on a machine that is busy with other work.
"""
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import neurarch


def wall(model, n, threads):
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        list(pool.map(lambda _: neurarch.trace(model, plan=True), range(n)))
    return time.perf_counter() - start


def main():
    model = sys.argv[1] if len(sys.argv) > 1 else "meta-llama/Llama-2-7b-hf"
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 400
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    wall(model, 20, 1)  # warm-up: first-use initialisation of the embedded data
    one = min(wall(model, n, 1) for _ in range(3))
    many = min(wall(model, n, threads) for _ in range(3))
    print(f"{model}: {n} traces with plan: 1 thread {one * 1e3:.0f} ms, {threads} threads {many * 1e3:.0f} ms, "
          f"speed-up {one / many:.2f}x")


if __name__ == "__main__":
    main()
