#!/usr/bin/env python3
"""One real training step on the CPU, its live tensor bytes measured exactly per phase.

    python tools/measure_cpu/measure_cpu.py --config ../shared/corpus/configs/gpt2.json --layers 2 \
        --precision fp32 --batch 1 --seq 64 --out calibration/cpu/rows.jsonl

A config is cut to --layers layers (the cut copy is written under --configs-out, the folder
validate resolves rows' configs against), built with random weights in the pinned transformers,
and trained for two steps: the first creates the optimizer state, the second is measured (see
counter.py). Each run appends one JSON line (schema neurarch.calibration.cpu/v1; docs/cpu-memory.md).
Test-side tooling: it needs torch, transformers and peft (tests/reference/requirements.txt).
"""
from __future__ import annotations

import argparse
import contextlib
import gc
import json
import sys
import time
import types
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "calibration"))

import torch  # noqa: E402

from counter import StepCounter, live_tensor_bytes  # noqa: E402

SCHEMA = "neurarch.calibration.cpu/v1"
LAYER_KEYS = ("num_hidden_layers", "n_layer", "n_layers", "num_layers", "num_decoder_layers", "encoder_layers",
              "decoder_layers")
PRECISIONS = ("fp32", "amp-bf16", "bf16")


def cut_config(source: Path, layers: int, out_dir: Path, name: str) -> Path:
    """A copy of `source` with at most `layers` layers (every layer-count key; per-layer lists cut too)."""
    d = json.loads(source.read_text())
    for key in LAYER_KEYS:
        if isinstance(d.get(key), int) and d[key] > layers:
            d[key] = layers
    for key in ("layer_types",):
        if isinstance(d.get(key), list):
            d[key] = d[key][:layers]
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{name}-{layers}l.json"
    path.write_text(json.dumps(d, indent=2, sort_keys=True) + "\n")
    return path


def build(config_path: Path, class_name: str, attention: str, dtype):
    import transformers
    d = json.loads(config_path.read_text())
    model_type = d.pop("model_type")
    config = transformers.AutoConfig.for_model(model_type, **d)
    cls = getattr(transformers, class_name)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        try:
            model = cls._from_config(config, attn_implementation=attention, dtype=dtype)
        except (ValueError, ImportError):
            if attention == "eager":
                raise
            model = cls._from_config(config, attn_implementation="eager", dtype=dtype)
    finally:
        torch.set_default_dtype(previous)
    model.to(dtype=dtype)
    used = getattr(model.config, "_attn_implementation", None) or attention
    return model, config, model_type, ("sdpa" if used == "sdpa" else "eager")


def inputs_for(class_name: str, config, batch: int, seq: int | None, image_size: int | None, pixel_dtype):
    import measure  # calibration/measure.py: the GPU tool's inputs, so both measure the same step
    case = types.SimpleNamespace(class_name=class_name, seq_len=seq, image_size=image_size)
    kwargs = measure.make_inputs(case, config, batch, "cpu", pixel_dtype)
    if class_name.endswith("ForConditionalGeneration") and "input_ids" in kwargs:
        kwargs["labels"] = kwargs["input_ids"].clone()  # the decoder reads the shifted labels
    return kwargs


class Step:
    """The row's training step, built and warmed up: `run(counter)` runs one steady-state step, with
    each phase inside `counter.phase(name)` when a counter is given (breakdown.py profiles the same step)."""

    def __init__(self, args):
        import measure
        torch.manual_seed(0)
        torch.set_num_threads(args.threads)
        source = Path(args.config)
        self.name = args.name or source.stem
        self.cut = cut_config(source, args.layers, Path(args.configs_out), self.name)
        self.lora = args.lora_dropout is not None
        # LoRA as the planner models it: a bf16 base, fp32 adapters (PEFT), bf16 autocast.
        self.precision = "amp-bf16" if self.lora else args.precision
        self.dtype = torch.bfloat16 if (self.lora or self.precision == "bf16") else torch.float32
        self.class_name = args.class_name or json.loads(source.read_text()).get("architectures", [None])[0]
        model, config, self.model_type, self.attention = build(self.cut, self.class_name, args.attention, self.dtype)
        if self.lora:
            case = types.SimpleNamespace(class_name=self.class_name, lora_rank=args.lora_rank,
                                         lora_dropout=args.lora_dropout)
            model = measure.apply_lora(model, case)
        model.train()
        self.model = model
        self.args = args
        params = [p for p in model.parameters() if p.requires_grad]
        self.trainable = sum(p.numel() for p in params)
        self.optimizer = None if args.optimizer == "none" else torch.optim.AdamW(params, lr=1e-5, foreach=args.foreach)
        self.kwargs = inputs_for(self.class_name, config, args.batch, args.seq, args.image_size, self.dtype)
        if args.loss == "logits-sum":
            self.kwargs.pop("labels", None)  # a benchmark calls the model without labels: no loss inside it
        self.held = {}
        # A first step creates the optimizer state, so the measured step is a steady-state one; zero
        # gradients stand in for a real forward and backward (the moments' size is all that matters).
        if self.optimizer is None:
            self.run()  # a held loop then has the previous step's outputs alive, as in steady state
        else:
            for p in params:
                p.grad = torch.zeros_like(p)
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)
            if args.hold_outputs:
                self.run()

    def _loss(self, outputs):
        import measure
        if self.args.loss == "logits-sum":
            return outputs.logits.sum()
        return measure.loss_of(outputs)

    # The loop as the row's setup runs it: the model's loss from labels, or a benchmark's
    # logits.sum(); the outputs dropped before backward (HF Trainer) or held by the loop variable
    # until the next step's forward returns (`outputs = model(**batch)`).
    def run(self, counter=None):
        ph = counter.phase if counter else (lambda _n: contextlib.nullcontext())
        autocast = torch.autocast("cpu", dtype=torch.bfloat16) if self.precision == "amp-bf16" \
            else contextlib.nullcontext()
        with ph("forward"):
            with autocast:
                if self.args.hold_outputs:
                    outputs = self.model(**self.kwargs)
                    # `outputs = model(**batch)` frees the previous step's outputs only once the forward returns.
                    release = lambda: self.held.clear()  # noqa: E731
                    counter.released(release) if counter else release()
                    self.held["outputs"] = outputs
                    del outputs
                    loss = self._loss(self.held["outputs"])
                else:
                    loss = self._loss(self.model(**self.kwargs))
        with ph("backward"):
            loss.backward()
            del loss
        if self.optimizer is None:
            self.model.zero_grad(set_to_none=True)
            return
        with ph("optimizer"):
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)


def run(args) -> dict:
    import peft
    import transformers
    # Tensors a previous run in this process left behind (module-level caches) are no part of this step.
    idle = live_tensor_bytes()
    step = Step(args)
    counter = StepCounter()
    t0 = time.perf_counter()
    with counter.profiling():
        step.run(counter)
    seconds = time.perf_counter() - t0
    r = counter.result()
    after = live_tensor_bytes() - idle
    r.baseline -= idle
    r.end -= idle
    r.peaks = {k: v - idle for k, v in r.peaks.items()}
    rel = lambda p: str(Path(p).resolve().relative_to(Path(args.config_root).resolve()))  # noqa: E731
    return {
        "schema": SCHEMA,
        "model": step.name,
        "model_type": step.model_type,
        "class": step.class_name,
        "config": rel(step.cut),
        "source_config": args.source_label or str(args.config),
        "layers": args.layers,
        "mode": "lora" if step.lora else "full",
        "precision": step.precision,
        "dtype": str(step.dtype).replace("torch.", ""),
        "optimizer": args.optimizer,
        "foreach": bool(args.foreach),
        "loss": args.loss,
        "hold_outputs": bool(args.hold_outputs),
        "lora": {"rank": args.lora_rank, "alpha": 2 * args.lora_rank, "dropout": args.lora_dropout} if step.lora else None,
        "attention": step.attention,
        "batch": args.batch,
        "seq": args.seq,
        "image_size": args.image_size,
        "trainable_parameters": step.trainable,
        "baseline_bytes": r.baseline,
        "forward_peak_bytes": r.peaks["forward"],
        "backward_peak_bytes": r.peaks["backward"],
        "optimizer_peak_bytes": r.peaks.get("optimizer", 0),
        "overall_peak_bytes": r.overall,
        # The counter's own check: the live bytes after the step, counted from the events and
        # found by walking Python's objects, agree when no allocation escaped the profiler.
        "end_bytes_counted": r.end,
        "end_bytes_walked": after,
        "threads": args.threads,
        "step_seconds": round(seconds, 2),
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "peft": peft.__version__,
    }


def arguments() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", help="a real config.json")
    ap.add_argument("--matrix", help="JSON list of runs, each an object of these options (underscored); "
                                     "options given on the command line are their defaults")
    ap.add_argument("--source-label", help="how the row names the source config (default: --config as given)")
    ap.add_argument("--name", help="short model name (default: the config's file name)")
    ap.add_argument("--class", dest="class_name", help="transformers class (default: the config's architectures[0])")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--precision", choices=PRECISIONS, default="fp32")
    ap.add_argument("--foreach", type=int, choices=(0, 1), default=1, help="AdamW multi-tensor (1) or for-loop (0)")
    ap.add_argument("--optimizer", choices=("adamw", "none"), default="adamw",
                    help="none: forward + backward only (benchmarks)")
    ap.add_argument("--loss", choices=("model", "logits-sum"), default="model",
                    help="the model's loss from labels, or a benchmark's logits.sum()")
    ap.add_argument("--hold-outputs", type=int, choices=(0, 1), default=0,
                    help="keep the outputs in a loop variable through backward and the next forward")
    ap.add_argument("--lora-dropout", type=float, help="LoRA through peft with this dropout (bf16 base + autocast)")
    ap.add_argument("--lora-rank", type=int, default=16)
    ap.add_argument("--attention", choices=("sdpa", "eager"), default="sdpa")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int)
    ap.add_argument("--image-size", type=int)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--configs-out", default=str(REPO / "calibration" / "cpu" / "configs"))
    ap.add_argument("--config-root", default=str(REPO / "calibration" / "cpu"),
                    help="the row's config path is written relative to this folder")
    ap.add_argument("--out", help="JSON-lines file to append the row to (default: stdout)")
    return ap


def main(argv=None) -> int:
    ap = arguments()
    args = ap.parse_args(argv)
    runs = [vars(args)]
    if args.matrix:
        runs = [{**vars(args), **entry} for entry in json.loads(Path(args.matrix).read_text())]
    failed = 0
    for entry in runs:
        one = argparse.Namespace(**entry)
        if not one.config or (one.seq is None) == (one.image_size is None):
            ap.error("each run needs --config and exactly one of --seq (text) and --image-size (vision)")
        try:
            row = run(one)
        except Exception as e:  # noqa: BLE001 - one failed run must not lose the others
            failed += 1
            print(f"measure_cpu: {one.config} {entry}: {type(e).__name__}: {e}", file=sys.stderr)
            continue
        finally:
            gc.collect()
        if row["end_bytes_counted"] != row["end_bytes_walked"]:
            # An allocation or free the profiler did not report: the peaks cannot be trusted either.
            failed += 1
            print(f"measure_cpu: {one.config} {entry}: the counter lost track (live bytes after the step: "
                  f"{row['end_bytes_counted']} counted, {row['end_bytes_walked']} walked); run it alone",
                  file=sys.stderr)
            continue
        line = json.dumps(row, sort_keys=False)
        if args.out:
            with open(args.out, "a") as f:
                f.write(line + "\n")
        print(line, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
