#!/usr/bin/env python3
"""What is live at each phase's peak of a CPU training step, by category and by the op that made it.

    python tools/measure_cpu/breakdown.py --config ../shared/corpus/configs/gpt2.json --seq 64

Same options as measure_cpu.py (one run). Uses the profiler's memory profile (record_shapes and
stacks on: slower than measure_cpu.py, for analysis only): every tensor gets a category (parameter,
optimizer state, gradient, activation, temporary, autograd detail, input) and each allocation the
innermost aten op that made it. Prints, per phase, the peak and the largest live groups at it.
"""
from __future__ import annotations

import collections
import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function  # noqa: E402
from torch.profiler._memory_profiler import Action  # noqa: E402

import measure_cpu  # noqa: E402


def main(argv=None) -> int:
    args = measure_cpu.arguments().parse_args(argv)
    if not args.config or (args.seq is None) == (args.image_size is None):
        sys.exit("breakdown: --config and exactly one of --seq and --image-size")
    args.configs_out = "/tmp/neurarch-breakdown"  # the cut config is for this run only
    step = measure_cpu.Step(args)
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True,
                 with_stack=True) as prof:
        step.run(types.SimpleNamespace(phase=lambda n: record_function("neurarch.phase:" + n),
                                       released=lambda release: release()))
    mp = prof._memory_profile()
    events = list(prof.profiler.kineto_results.events())
    ranges = [(e.name().split(":", 1)[1], e.start_ns(), e.end_ns()) for e in events
              if e.name().startswith("neurarch.phase:")]
    ops = sorted(((e.start_ns(), e.end_ns(), e.name()) for e in events
                  if e.name().startswith("aten::") or e.name().startswith("autograd::")), key=lambda x: x[0])

    def op_at(t):
        # The chain of ops running at t, outermost first: the autograd node a backward allocation is made
        # in, then the aten op that made it.
        chain = [n for s, e, n in ops if s <= t <= e]
        if not chain:
            return "?"
        autograd = [n.split(": ", 1)[-1] for n in chain if n.startswith("autograd::")]
        aten = [n for n in chain if n.startswith("aten::")]
        return " > ".join(autograd[-1:] + aten[:1] + aten[-1:] if len(aten) > 1 else autograd[-1:] + aten)

    live = {}  # storage id -> (bytes, category, op)
    level = 0
    peaks = {name: (-1, None, 0) for name, _, _ in ranges}
    for t, action, (key, version), size in mp.timeline:
        k = key.id if hasattr(key, "id") else key
        cat = mp._categories.get(key, version)
        cat = cat.name if cat is not None else "UNKNOWN"
        if action in (Action.PREEXISTING, Action.CREATE):
            live[k] = (size, cat, "before the step" if action == Action.PREEXISTING else op_at(t))
            level += size
        elif action == Action.DESTROY and k in live:
            level -= live.pop(k)[0]
        for name, s, e in ranges:
            if s <= t <= e and level > peaks[name][0]:
                peaks[name] = (level, dict(live), t)
    for name, (lv, snap, when) in peaks.items():
        print(f"== {name}: peak {lv / 2**20:.2f} MiB, reached in {op_at(when)}")
        by_cat = collections.Counter()
        by_op = collections.Counter()
        for size, cat, op in snap.values():
            by_cat[cat] += size
            by_op[(cat, op)] += size
        for cat, b in by_cat.most_common():
            print(f"   {cat:<18} {b / 2**20:10.2f} MiB")
        print("   largest (category, op that made it):")
        for (cat, op), b in by_op.most_common(14):
            print(f"     {b / 2**20:10.2f} MiB  {cat:<16} {op}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
