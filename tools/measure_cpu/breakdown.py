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
import contextlib
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function  # noqa: E402
from torch.profiler._memory_profiler import Action  # noqa: E402

import measure_cpu  # noqa: E402


def main(argv=None) -> int:
    captured = {}

    def fake_run(args):
        import measure
        torch.manual_seed(0)
        torch.set_num_threads(args.threads)
        source = Path(args.config)
        cut = measure_cpu.cut_config(source, args.layers, Path("/tmp/neurarch-breakdown"), source.stem)
        lora = args.lora_dropout is not None
        precision = "amp-bf16" if lora else args.precision
        dtype = torch.bfloat16 if (lora or precision == "bf16") else torch.float32
        import json
        cls = args.class_name or json.loads(source.read_text()).get("architectures", [None])[0]
        model, config, _, _ = measure_cpu.build(cut, cls, args.attention, dtype)
        if lora:
            import types
            model = measure.apply_lora(model, types.SimpleNamespace(class_name=cls, lora_rank=args.lora_rank,
                                                                    lora_dropout=args.lora_dropout))
        model.train()
        opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-5, foreach=args.foreach)
        kw = measure_cpu.inputs_for(cls, config, args.batch, args.seq, args.image_size, dtype)
        ac = (lambda: torch.autocast("cpu", dtype=torch.bfloat16)) if precision == "amp-bf16" \
            else contextlib.nullcontext

        def step(mark):
            with mark("forward"):
                with ac():
                    loss = measure.loss_of(model(**kw))
            with mark("backward"):
                loss.backward()
                del loss
            with mark("optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=True)

        step(lambda n: contextlib.nullcontext())
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True, record_shapes=True,
                     with_stack=True) as prof:
            step(lambda n: record_function("neurarch.phase:" + n))
        captured["prof"] = prof
        return {}

    measure_cpu.run = fake_run
    sys.argv = [sys.argv[0]] + list(argv or sys.argv[1:])
    measure_cpu.main(argv)
    prof = captured["prof"]
    mp = prof._memory_profile()
    events = list(prof.profiler.kineto_results.events())
    ranges = [(e.name().split(":", 1)[1], e.start_ns(), e.end_ns()) for e in events
              if e.name().startswith("neurarch.phase:")]
    ops = sorted(((e.start_ns(), e.end_ns(), e.name()) for e in events
                  if e.name().startswith("aten::") or e.name().startswith("autograd::")), key=lambda x: x[0])

    def op_at(t):
        best = None
        for s, e, n in ops:
            if s > t:
                break
            if e >= t and (best is None or s >= best[0]):
                best = (s, e, n)
        return best[2] if best else "?"

    live = {}  # storage id -> (bytes, category, op)
    level = 0
    peaks = {name: (-1, None) for name, _, _ in ranges}
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
                peaks[name] = (level, dict(live))
    for name, (lv, snap) in peaks.items():
        print(f"== {name}: peak {lv / 2**20:.2f} MiB")
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
