#!/usr/bin/env python3
"""Bytes autograd keeps for one training forward of a vision model, per sample, each storage counted once.

    python tools/measure_cpu/saved_storage_bytes.py --config resnet.json --batch 2 --image-size 128 --precision fp32

Compare with the planner's activation total (`neurarch-trace CONFIG --plan --batch B --image-size S --precision P
--format json`: the sum of plan.activations[].full_bytes_per_sample). Parameters are left out, and so are tensors
shaped like a parameter (autocast's weight casts, batch-norm statistics), which the plan counts in other terms.
Built for docs/cpu-memory.md's convolutional-backbone check; tools/measure_cpu/saved_tensors.py lists each tensor.
"""
from __future__ import annotations

import argparse
import json

import torch
import transformers


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", required=True, help="a config.json whose architectures[0] names the class")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--image-size", type=int, default=128)
    ap.add_argument("--precision", choices=("fp32", "bf16", "amp-bf16"), default="fp32")
    args = ap.parse_args(argv)

    raw = json.load(open(args.config))
    config = transformers.AutoConfig.for_model(**raw)
    cls = getattr(transformers, raw["architectures"][0])
    torch.manual_seed(0)
    dtype = torch.bfloat16 if args.precision == "bf16" else torch.float32
    model = cls(config).train().to(dtype)
    pixels = torch.randn(args.batch, config.num_channels, args.image_size, args.image_size, dtype=dtype)
    parameter_storages = {p.untyped_storage().data_ptr() for p in model.parameters()}
    parameter_shapes = {tuple(p.shape) for p in model.parameters()}
    kept: dict[int, int] = {}

    def pack(t: torch.Tensor) -> torch.Tensor:
        storage = t.untyped_storage()
        shaped_like_parameter = tuple(t.shape) in parameter_shapes and (t.dim() == 0 or t.shape[0] != args.batch)
        if storage.data_ptr() not in parameter_storages and not shaped_like_parameter:
            kept.setdefault(storage.data_ptr(), storage.nbytes())
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=args.precision == "amp-bf16"):
            model(pixel_values=pixels)
    print(json.dumps({"class": cls.__name__, "precision": args.precision, "batch": args.batch,
                      "image_size": args.image_size, "kept_bytes_per_sample": sum(kept.values()) / args.batch}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
