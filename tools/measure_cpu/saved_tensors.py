#!/usr/bin/env python3
"""Every tensor autograd saves in one forward pass, with the module that saved it, its dtype and shape.

    python tools/measure_cpu/saved_tensors.py --config ../shared/corpus/configs/facebook--dinov2-small.json \
        --class Dinov2Model --batch 4 --image-size 112 --lora-dropout 0.05

The op-by-op view behind a CPU row (docs/cpu-memory.md): compare it with the planner's saved items per node
when a phase peak is off. Parameters are left out (they are not activations); a storage saved twice is
listed once, under the module that saved it first. With --lora-dropout the model is adapted as
measure_cpu.py does (bf16 base, fp32 adapters, bf16 autocast).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "calibration"))

import torch  # noqa: E402

import measure_cpu  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", required=True, help="a real config.json")
    ap.add_argument("--class", dest="class_name", help="transformers class (default: the config's architectures[0])")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--precision", choices=measure_cpu.PRECISIONS, default="fp32")
    ap.add_argument("--lora-dropout", type=float, help="LoRA through peft with this dropout (bf16 base + autocast)")
    ap.add_argument("--lora-rank", type=int, default=16)
    ap.add_argument("--attention", choices=("sdpa", "eager"), default="sdpa")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int)
    ap.add_argument("--image-size", type=int)
    args = ap.parse_args(argv)

    import measure
    torch.manual_seed(0)
    source = Path(args.config)
    cut = measure_cpu.cut_config(source, args.layers, Path("/tmp/neurarch-saved-tensors"), source.stem)
    cls = args.class_name or json.loads(source.read_text()).get("architectures", [None])[0]
    lora = args.lora_dropout is not None
    precision = "amp-bf16" if lora else args.precision
    dtype = torch.bfloat16 if (lora or precision == "bf16") else torch.float32
    model, config, _, _ = measure_cpu.build(cut, cls, args.attention, dtype)
    if lora:
        model = measure.apply_lora(model, types.SimpleNamespace(class_name=cls, lora_rank=args.lora_rank,
                                                                lora_dropout=args.lora_dropout))
    model.train()
    kw = measure_cpu.inputs_for(cls, config, args.batch, args.seq, args.image_size, dtype)

    names = {m: n for n, m in model.named_modules()}
    stack: list = []

    def leave(module, args, output):  # a forward hook that returns something replaces the output
        stack.pop()

    hooks = [torch.nn.modules.module.register_module_forward_pre_hook(lambda m, a: stack.append(m)),
             torch.nn.modules.module.register_module_forward_hook(leave)]
    parameters = {p.untyped_storage().data_ptr() for p in model.parameters()}
    rows: list[tuple[str, str, tuple, int]] = []
    seen: set[int] = set()

    def pack(t):
        ptr = t.untyped_storage().data_ptr()
        if ptr not in parameters and ptr not in seen:
            seen.add(ptr)
            rows.append((names.get(stack[-1], "?") if stack else "(top)", str(t.dtype).replace("torch.", ""),
                         tuple(t.shape), t.untyped_storage().nbytes()))
        return t

    autocast = torch.autocast("cpu", dtype=torch.bfloat16) if precision == "amp-bf16" else contextlib.nullcontext()
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t), autocast:
        loss = measure.loss_of(model(**kw))
    for h in hooks:
        h.remove()
    del loss
    for module, dt, shape, nbytes in rows:
        print(f"{nbytes:>12}  {dt:<9} {str(list(shape)):<22} {module}")
    print(f"{sum(r[3] for r in rows):>12}  saved in all ({len(rows)} storages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
