"""The core runs without the GIL: another Python thread keeps running during a call, and threads
calling the core at once get the answers they would get one after another.

Speed-ups are measured by python/bench/thread_scaling.py, not asserted here: on a shared 2-core
machine a timing assertion would fail for reasons that are not the binding's.
"""
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import neurarch
import pytest

from conftest import REPO

# Long enough that a held GIL would stop the other thread for tens of milliseconds.
LAYERS = 4096


def deep_llama():
    config = json.loads((REPO / "data" / "catalogue" / "meta-llama--Llama-2-7b-hf.json").read_text())
    config["num_hidden_layers"] = LAYERS
    return config


def longest_stall_of_another_thread(call):
    """(duration of call(), longest gap between two steps of a busy Python thread during it)."""
    steps, stop, running = [], threading.Event(), threading.Event()

    def busy():
        running.set()
        while not stop.is_set():
            steps.append(time.perf_counter())

    thread = threading.Thread(target=busy)
    thread.start()
    running.wait()
    begin = time.perf_counter()
    call()
    end = time.perf_counter()
    stop.set()
    thread.join()
    during = [begin] + [s for s in steps if begin < s < end] + [end]
    return end - begin, max(b - a for a, b in zip(during, during[1:]))


@pytest.fixture(scope="module")
def deep_report():
    return neurarch.trace(deep_llama())


@pytest.mark.parametrize("what", ["trace", "plan", "to_json"])
def test_another_thread_runs_while_the_core_works(deep_report, what):
    calls = {
        "trace": lambda: neurarch.trace(deep_llama(), plan=True),
        "plan": lambda: deep_report.plan(),
        "to_json": lambda: deep_report.to_json(),
    }
    duration, stall = longest_stall_of_another_thread(calls[what])
    # Holding the GIL would stall the other thread for the whole call, less a switch interval.
    assert duration > 0.02, f"{what} took {duration * 1e3:.1f} ms: too short to tell; make the model deeper"
    assert stall < duration / 2, f"{what}: the other thread stalled {stall * 1e3:.1f} ms of {duration * 1e3:.1f} ms"


def test_concurrent_calls_give_the_sequential_answers():
    models = []
    for model in neurarch.catalogue():
        try:
            neurarch.trace(model)
            models.append(model)
        except neurarch.Unsupported:
            pass
    expected = {m: neurarch.trace(m, plan=True).to_json() for m in models}
    with ThreadPoolExecutor(max_workers=4) as pool:
        got = list(pool.map(lambda m: (m, neurarch.trace(m).plan().to_json()), models * 3))
    assert all(json_text == expected[m] for m, json_text in got)
