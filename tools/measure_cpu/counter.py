"""Exact live-tensor bytes of a CPU training step, per phase.

PyTorch's CPU allocator reports every allocation and free to the profiler when memory profiling is
on (torch.profiler.profile(profile_memory=True)): each "[memory]" event carries the signed byte
count of one allocation or free. The running sum of those events, added to the bytes that were
live before profiling started (every tensor Python can reach: parameters, buffers, optimizer
state, inputs), is the live tensor bytes after each event; its maximum inside a phase's
record_function range is the phase's peak. No allocator rounding enters: the CPU allocator reports
the requested size.
"""
from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field

import torch
from torch.profiler import ProfilerActivity, profile, record_function

PHASE_PREFIX = "neurarch.phase:"
# The profiler reports no free of a block allocated before it started: a loop that holds the previous
# step's outputs releases them unseen. The step marks such a release with its bytes (found by walking
# Python's objects before and after) so the count drops where memory really did.
RELEASE_PREFIX = "neurarch.released:"


def live_tensor_bytes() -> int:
    """Bytes of every distinct storage Python can reach (a view and its base count once)."""
    gc.collect()
    seen: dict[int, int] = {}
    for o in gc.get_objects():
        try:
            if not torch.is_tensor(o) or o.device.type != "cpu" or o.is_meta:
                continue
            s = o.untyped_storage()
        except Exception:  # noqa: BLE001 - a half-built or exotic tensor subclass: not ours
            continue
        if s.nbytes() and s.data_ptr():
            seen[s.data_ptr()] = max(seen.get(s.data_ptr(), 0), s.nbytes())
        g = getattr(o, "grad", None) if isinstance(o, torch.nn.Parameter) else None
        if g is not None:
            gs = g.untyped_storage()
            seen[gs.data_ptr()] = max(seen.get(gs.data_ptr(), 0), gs.nbytes())
    return sum(seen.values())


@dataclass
class PhasePeaks:
    baseline: int = 0                  # live bytes before the step
    peaks: dict = field(default_factory=dict)  # phase -> peak live bytes inside it
    end: int = 0                       # baseline + every event: live bytes after the step
    events: int = 0

    @property
    def overall(self) -> int:
        return max([self.baseline, *self.peaks.values()])


class StepCounter:
    """Usage:
        counter = StepCounter()
        with counter.profiling():
            with counter.phase("forward"): ...
            with counter.phase("backward"): ...
        result = counter.result()
    """

    def __init__(self):
        self._prof = None
        self._baseline = 0

    @contextmanager
    def profiling(self):
        self._baseline = live_tensor_bytes()
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
            yield self
        self._prof = prof

    @staticmethod
    @contextmanager
    def phase(name: str):
        with record_function(PHASE_PREFIX + name):
            yield

    def released(self, release):
        """Runs `release` (which drops references to tensors allocated before profiling started) and
        marks the bytes it freed."""
        before = live_tensor_bytes()
        release()
        freed = before - live_tensor_bytes()
        with record_function(RELEASE_PREFIX + str(freed)):
            pass

    def result(self) -> PhasePeaks:
        events = list(self._prof.profiler.kineto_results.events())
        # Sorted by time; events of one instant keep the order they were recorded in.
        memory = sorted([(e.start_ns(), i, int(e.nbytes())) for i, e in enumerate(events)
                         if e.name() == "[memory]" and str(e.device_type()).endswith("CPU")] +
                        [(e.start_ns(), i, -int(e.name()[len(RELEASE_PREFIX):])) for i, e in enumerate(events)
                         if e.name().startswith(RELEASE_PREFIX)])
        ranges = [(e.name()[len(PHASE_PREFIX):], e.start_ns(), e.end_ns()) for e in events
                  if e.name().startswith(PHASE_PREFIX)]
        out = PhasePeaks(baseline=self._baseline, events=len(memory))
        live = self._baseline
        level_at = {name: None for name, _, _ in ranges}  # the level when each phase starts
        for name, _, _ in ranges:
            out.peaks[name] = 0
        for t, _, nbytes in memory:
            for name, start, _ in ranges:
                if level_at[name] is None and t >= start:
                    level_at[name] = live
            live += nbytes
            for name, start, end in ranges:
                if start <= t <= end:
                    out.peaks[name] = max(out.peaks[name], live)
        for name, _, _ in ranges:
            start_level = live if level_at[name] is None else level_at[name]
            out.peaks[name] = max(out.peaks[name], start_level)
        out.end = live
        return out
