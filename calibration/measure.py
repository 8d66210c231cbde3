#!/usr/bin/env python3
"""Measure real fine-tuning memory on a GPU, for `neurarch-trace validate` to compare with the planner.

For each case of a case list (calibration/cases_*.json) this builds the model from its config with
random weights (no download), runs three training steps on random inputs of the case's shape and
records what the GPU reported: torch.cuda.max_memory_allocated / max_memory_reserved, the device's
used memory (NVML, which includes the CUDA context), the phase the peak happened in and whether the
run went out of memory. Card-size sweeps emulate smaller cards with
torch.cuda.set_per_process_memory_fraction and find the largest batch that fits each one.

The training step is exactly the one src/plan models (src/plan/setup.hpp, memory.cpp):
- full:  fp32 weights, torch.optim.AdamW (PyTorch's default multi-tensor step), bf16 autocast, SDPA;
- lora:  a bf16 base, LoRA r=16 (dropout 0.05) on every nn.Linear / Conv1D but the output layer,
         adapters and a classification head (modules_to_save) trained in fp32, bf16 autocast, SDPA.
Both: model.train() (dropout on, as configured), zero_grad(set_to_none=True) after each step.

Usage (on the GPU machine, from the repository root):
    python3 calibration/measure.py calibration/cases_run1.json
    python3 calibration/measure.py calibration/cases_run1.json --out "$OUT/run1.csv" --time-budget 480
    python3 calibration/measure.py calibration/cases_run1.json --list        # what would run, no torch needed
    python3 calibration/measure.py calibration/cases_tiny.json --device cpu --out /tmp/cpu.csv  # CPU run

Rows are appended to the CSV as each run finishes, so a run stopped by its time limit keeps every
finished row. The columns are documented in README.md, section "Calibration" (and in COLUMNS below).
--device cpu (alias --dry-run) runs the same code on the CPU: the figures are the peaks of live
tensor bytes per phase from torch.profiler's memory events (CpuMemoryProbe), an emulated card is a cap
on them checked after the run (an "oom" row), and nothing CUDA-only (reserved, context, device used)
is written. Its rows carry device=cpu and dry_run=1: `validate` refuses them as GPU measurements and
this script refuses to write them under calibration/measured/. The test suite runs
calibration/cases_tiny.json this way (calibration/test_measure.py).
"""
from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import gc
import hashlib
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional

SCHEMA = "neurarch.calibration.measured/v1"
CASES_SCHEMA = "neurarch.calibration.cases/v1"
HERE = Path(__file__).resolve().parent
REPO = HERE.parent
MEASURED_DIR = HERE / "measured"
PHASES = ("forward_end", "backward", "optimizer_step")  # the planner's phase names
STEPS = 3

# Column order of the CSV. `neurarch-trace validate` requires the columns it reads
# (src/calibration/measured_row.cpp, required_columns()) and ignores the others.
COLUMNS = [
    "schema",                # neurarch.calibration.measured/v1
    "run_id",                # one id per measure.py invocation
    "case_id",               # from the case list; sweeps add @card/b<batch>
    "model_type",            # the config's model_type: the family statistics are grouped by
    "config",                # path of the config.json relative to calibration/
    "config_sha256",         # of the config file's bytes when measured
    "class",                 # transformers class built (the planner builds the same with --class)
    "mode",                  # full | lora
    "batch",
    "seq_len",               # text models: tokens per sample (empty for vision)
    "image_size",            # vision models: square image side in pixels (empty for text)
    "attention",             # sdpa | eager: what the model really ran
    "optimizer",             # adamw (multi-tensor, PyTorch's default)
    "lora_rank",
    "lora_dropout",
    "card",                  # emulated card name (sweeps), empty: the whole device
    "card_bytes",            # emulated card memory (data/cards.json), empty: the whole device
    "allocator_limit_bytes", # card_bytes - measured context: what set_per_process_memory_fraction allowed
    "total_memory_bytes",    # torch.cuda.get_device_properties(0).total_memory
    "status",                # ok | oom | error
    "error",                 # why, for status error (and the OOM message for oom)
    "steps",                 # training steps completed
    "max_allocated_bytes",   # torch.cuda.max_memory_allocated over the steps
    "max_reserved_bytes",    # torch.cuda.max_memory_reserved over the steps
    "peak_phase",            # forward_end | backward | optimizer_step: the phase max_allocated was reached in
    "forward_peak_bytes",    # max allocated within each phase of the last step
    "backward_peak_bytes",
    "optimizer_peak_bytes",
    "device_used_bytes",     # device memory in use (NVML) right after the last step
    "device_baseline_bytes", # device memory in use before this process touched CUDA (empty if unknown)
    "reserved_at_sample_bytes",  # torch.cuda.memory_reserved at the device_used sample
    "context_bytes",         # device_used - reserved_at_sample - baseline: CUDA context and kernels
    "device_source",         # nvml | cuda_mem_get_info (cudaMemGetInfo, also device-wide)
    "parameters",            # parameters of the built model (before LoRA)
    "trainable_parameters",  # parameters with requires_grad during training
    "step_seconds",          # wall time of the last step
    "gpu_name",
    "driver_version",
    "cuda_version",          # torch.version.cuda
    "torch_version",
    "transformers_version",
    "peft_version",
    "python_version",
    "dry_run",               # 1: a CPU run (--device cpu), not a GPU measurement
    "device",                # cuda | cpu (cpu: live tensor bytes from torch.profiler's memory events)
    "timestamp",             # UTC, ISO 8601
]


class CaseError(ValueError):
    """A case list that cannot be run; the message names the file and the case."""


# ----------------------------------------------------------------------------------------------
# Case list

@dataclass
class Case:
    id: str
    config: str            # relative to calibration/
    model_type: str
    class_name: str
    mode: str              # full | lora
    batch: int
    seq_len: Optional[int] = None
    image_size: Optional[int] = None
    lora_rank: int = 16
    lora_dropout: float = 0.05
    sweep_cards: list = field(default_factory=list)   # card names: find the largest batch on each
    sweep_max_batch: int = 0


def _positive_int(value, what, where):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise CaseError(f"{where}: {what} must be a positive integer, got {value!r}")
    return value


def _as_list(value):
    return value if isinstance(value, list) else [value]


def load_cases(path: Path, calibration_dir: Path = HERE) -> list[Case]:
    """Expands a case list (every batch x length combination of an entry becomes one case)."""
    try:
        doc = json.loads(Path(path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise CaseError(f"{path}: {e}") from e
    if doc.get("schema") != CASES_SCHEMA:
        raise CaseError(f"{path}: schema must be {CASES_SCHEMA!r}")
    defaults = doc.get("defaults", {})
    cases: list[Case] = []
    seen = set()
    for i, entry in enumerate(doc.get("cases", [])):
        where = f"{path}: case {i + 1}"
        e = {**defaults, **entry}
        for key in ("config", "class", "mode"):
            if key not in e:
                raise CaseError(f"{where}: '{key}' is missing")
        if e["mode"] not in ("full", "lora"):
            raise CaseError(f"{where}: mode must be full or lora, got {e['mode']!r}")
        config_path = calibration_dir / e["config"]
        if not config_path.is_file():
            raise CaseError(f"{where}: config {e['config']!r} not found under {calibration_dir}")
        config = json.loads(config_path.read_text())
        model_type = config.get("model_type")
        if not model_type:
            raise CaseError(f"{where}: {e['config']} has no model_type")
        lengths = e.get("seq_len")
        sizes = e.get("image_size")
        if (lengths is None) == (sizes is None):
            raise CaseError(f"{where}: give exactly one of seq_len (text) or image_size (vision)")
        shapes = [("seq_len", _positive_int(v, "seq_len", where)) for v in _as_list(lengths)] if lengths is not None \
            else [("image_size", _positive_int(v, "image_size", where)) for v in _as_list(sizes)]
        batches = [_positive_int(b, "batch", where) for b in _as_list(e.get("batch", 1))]
        sweep = e.get("sweep") or {}
        cards = list(sweep.get("cards", []))
        max_batch = _positive_int(sweep.get("max_batch", 1024), "sweep.max_batch", where) if cards else 0
        stem = Path(e["config"]).stem
        for kind, size in shapes:
            for b in batches:
                shape = f"s{size}" if kind == "seq_len" else f"px{size}"
                case_id = e.get("id") or f"{stem}-{e['mode']}-{shape}" + (f"-b{b}" if not cards else "-sweep")
                if len(shapes) * len(batches) > 1 and e.get("id"):
                    case_id = f"{e['id']}-{shape}-b{b}"
                if case_id in seen:
                    raise CaseError(f"{where}: case id {case_id!r} appears twice")
                seen.add(case_id)
                cases.append(Case(
                    id=case_id, config=e["config"], model_type=model_type, class_name=e["class"], mode=e["mode"],
                    batch=b, seq_len=size if kind == "seq_len" else None,
                    image_size=size if kind == "image_size" else None,
                    lora_rank=_positive_int(e.get("lora_rank", 16), "lora_rank", where),
                    lora_dropout=float(e.get("lora_dropout", 0.05)),
                    sweep_cards=cards, sweep_max_batch=max_batch))
    if not cases:
        raise CaseError(f"{path}: no cases")
    return cases


def load_cards(path: Path = REPO / "data" / "cards.json") -> dict[str, int]:
    doc = json.loads(Path(path).read_text())
    return {c["name"]: int(c["memory_bytes"]) for c in doc["cards"]}


def load_case_cards(path: Path, known: dict[str, int]) -> dict[str, int]:
    """A case list's own emulated cards ("cards": [{"name", "memory_bytes"}]): memory caps small
    enough for a tiny model's sweep on the CPU. A real card's name (data/cards.json) is refused, so
    no case list can change what a real card means."""
    doc = json.loads(Path(path).read_text())
    cards = {}
    for i, c in enumerate(doc.get("cards", [])):
        where = f"{path}: card {i + 1}"
        if not isinstance(c, dict) or not isinstance(c.get("name"), str) or not c["name"]:
            raise CaseError(f"{where}: give a name and memory_bytes")
        if c["name"] in known:
            raise CaseError(f"{where}: {c['name']!r} is a real card of data/cards.json; name an emulated one otherwise")
        cards[c["name"]] = _positive_int(c.get("memory_bytes"), "memory_bytes", where)
    return cards


# ----------------------------------------------------------------------------------------------
# Largest batch on a card: doubling, then bisection, over a predicate that runs the model.

def find_max_batch(fits: Callable[[int], bool], cap: int, start: int = 1) -> int:
    """Largest batch b <= cap with fits(b), assuming fits is monotone (0 when even `start` fails).
    Every probe is a real run, so the search asks as few as it can: doubling then bisecting."""
    if not fits(start):
        return 0
    lo, hi = start, start * 2
    while hi <= cap and fits(hi):
        lo, hi = hi, hi * 2
    if hi > cap:
        hi = cap + 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


# ----------------------------------------------------------------------------------------------
# Device probes

class DeviceMonitor:
    """Device-wide used memory: NVML when pynvml is importable, else cudaMemGetInfo via torch."""

    def __init__(self, torch_module, device_index: int = 0):
        self.torch = torch_module
        self.index = device_index
        self.handle = None
        self.source = "cuda_mem_get_info"
        try:
            import pynvml  # nvidia-ml-py
            pynvml.nvmlInit()
            self.pynvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(device_index)
            self.source = "nvml"
        except Exception:  # noqa: BLE001 - no NVML bindings: fall back to the CUDA runtime
            self.pynvml = None

    def used_bytes(self) -> int:
        if self.handle is not None:
            return int(self.pynvml.nvmlDeviceGetMemoryInfo(self.handle).used)
        free, total = self.torch.cuda.mem_get_info(self.index)
        return int(total - free)

    def driver_version(self) -> str:
        if self.pynvml is not None:
            v = self.pynvml.nvmlSystemGetDriverVersion()
            return v.decode() if isinstance(v, bytes) else str(v)
        return nvidia_smi_query("driver_version") or ""


def nvidia_smi_query(field_name: str) -> Optional[str]:
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={field_name}", "--format=csv,noheader,nounits", "-i", "0"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip().splitlines()[0].strip() if out.returncode == 0 and out.stdout.strip() else None


def idle_device_used_bytes() -> Optional[int]:
    """Used memory before this process creates a CUDA context (NVML or nvidia-smi; no CUDA init)."""
    try:
        import pynvml
        pynvml.nvmlInit()
        return int(pynvml.nvmlDeviceGetMemoryInfo(pynvml.nvmlDeviceGetHandleByIndex(0)).used)
    except Exception:  # noqa: BLE001
        mib = nvidia_smi_query("memory.used")
        return int(float(mib) * 2**20) if mib else None


# ----------------------------------------------------------------------------------------------
# Model, inputs, loss

CLASSIFICATION_SUFFIXES = ("ForSequenceClassification", "ForImageClassification", "ForTokenClassification")
LM_SUFFIXES = ("ForCausalLM", "LMHeadModel", "ForMaskedLM")


def build_config(case: Case, calibration_dir: Path = HERE):
    import transformers
    d = json.loads((calibration_dir / case.config).read_text())
    model_type = d.pop("model_type")
    return transformers.AutoConfig.for_model(model_type, **d)


def build_model(case: Case, device: str, dtype, attention: str = "sdpa"):
    """The case's class from its config with random weights, on `device`, in `dtype`. Returns the
    model and the attention implementation it really uses (eager when SDPA is refused)."""
    import torch
    import transformers
    cls = getattr(transformers, case.class_name, None)
    if cls is None:
        raise RuntimeError(f"transformers {transformers.__version__} has no class {case.class_name}")
    config = build_config(case)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with _allocate_on(torch, device):
            try:
                model = _from_config(cls, config, attention, dtype)
            except (ValueError, ImportError):
                # A class without an SDPA path refuses it at construction; it then runs eager,
                # the row says so and validate plans it with --attention eager.
                if attention == "eager":
                    raise
                model = _from_config(cls, config, "eager", dtype)
    finally:
        torch.set_default_dtype(previous)
    model.to(device=device, dtype=dtype)
    used = getattr(model.config, "_attn_implementation", None) or attention
    return model, ("sdpa" if used == "sdpa" else "eager")


def _from_config(cls, config, attention: str, dtype):
    """Random weights in `dtype`. Without an explicit dtype, _from_config would build in the config's
    dtype (float16 for Llama-2) and the model would pass through a second copy on conversion.
    transformers 5 names the argument dtype (torch_dtype is deprecated there); 4.x passes an unknown
    dtype= on to the model's __init__, so 4.x gets torch_dtype."""
    import transformers
    key = "dtype" if int(transformers.__version__.split(".")[0]) >= 5 else "torch_dtype"
    return cls._from_config(config, attn_implementation=attention, **{key: dtype})


def _allocate_on(torch, device: str):
    """Creates parameters directly on the device (torch >= 2.0), so a large model never passes
    through host memory; the CPU run takes the same path. Older torch builds on the CPU and moves."""
    if not hasattr(torch.device, "__enter__"):
        return contextlib.nullcontext()
    return torch.device(device)


def head_module_names(model, class_name: str) -> tuple[set, list]:
    """Names of the modules LoRA leaves alone: the output layer (frozen) and a classification head
    (trained in full, PEFT's modules_to_save). Mirrors src/plan/weights.cpp: every linear but the head."""
    by_id = {id(m): n for n, m in model.named_modules()}
    excluded, to_save = set(), []
    out = model.get_output_embeddings() if hasattr(model, "get_output_embeddings") else None
    if out is not None and id(out) in by_id:
        excluded.add(by_id[id(out)])
    if class_name.endswith(CLASSIFICATION_SUFFIXES):
        for attr in ("classifier", "score"):
            head = getattr(model, attr, None)
            if head is not None:
                excluded.add(by_id[id(head)])
                to_save.append(attr)
                break
    return excluded, to_save


def lora_targets(model, class_name: str) -> tuple[list, list]:
    """The full names of the modules LoRA adapts (every nn.Linear / Conv1D outside the heads; PEFT
    matches a full name exactly) and the modules it trains in full (modules_to_save)."""
    import torch
    from transformers.pytorch_utils import Conv1D
    excluded, to_save = head_module_names(model, class_name)
    targets = sorted(n for n, m in model.named_modules()
                     if isinstance(m, (torch.nn.Linear, Conv1D))
                     and not any(n == x or n.startswith(x + ".") for x in excluded))
    if not targets:
        raise RuntimeError("no linear layer to adapt")
    return targets, to_save


def apply_lora(model, case: Case):
    import torch
    from peft import LoraConfig, get_peft_model
    targets, to_save = lora_targets(model, case.class_name)
    config = LoraConfig(r=case.lora_rank, lora_alpha=2 * case.lora_rank, lora_dropout=case.lora_dropout,
                        target_modules=targets, modules_to_save=to_save or None, bias="none")
    peft_model = get_peft_model(model, config)
    # Adapters and the saved head train in fp32 (PEFT upcasts adapters itself; the head copy is bf16).
    for p in peft_model.parameters():
        if p.requires_grad and p.dtype != torch.float32:
            p.data = p.data.float()
    return peft_model


def make_inputs(case: Case, config, batch: int, device: str, pixel_dtype):
    """Random inputs of the case's shape, with labels where the class computes its own loss."""
    import torch
    g = torch.Generator(device="cpu").manual_seed(0)
    kwargs = {}
    if case.image_size:
        channels = getattr(config, "num_channels", 3)
        kwargs["pixel_values"] = torch.randn(batch, channels, case.image_size, case.image_size, generator=g) \
            .to(device=device, dtype=pixel_dtype)
    else:
        vocab = int(getattr(config, "vocab_size"))
        kwargs["input_ids"] = torch.randint(0, vocab, (batch, case.seq_len), generator=g).to(device)
    name = case.class_name
    if name.endswith(LM_SUFFIXES):
        kwargs["labels"] = kwargs["input_ids"].clone()
    elif name.endswith(("ForSequenceClassification", "ForImageClassification")):
        labels = max(int(getattr(config, "num_labels", 2)), 2)
        kwargs["labels"] = torch.randint(0, labels, (batch,), generator=g).to(device)
    elif name.endswith("ForTokenClassification"):
        labels = max(int(getattr(config, "num_labels", 2)), 2)
        kwargs["labels"] = torch.randint(0, labels, (batch, case.seq_len), generator=g).to(device)
    elif name == "ElectraForPreTraining":
        kwargs["labels"] = torch.randint(0, 2, (batch, case.seq_len), generator=g).to(device)
    return kwargs


def loss_of(outputs):
    """The model's own loss when it computed one; else the mean of every floating output (the mean
    keeps nothing for backward, so a base model is measured without an invented head)."""
    import torch
    loss = getattr(outputs, "loss", None)
    if loss is not None:
        return loss
    values = outputs.values() if hasattr(outputs, "values") else outputs
    total = None
    for v in values:
        if torch.is_tensor(v) and v.is_floating_point():
            total = v.float().mean() if total is None else total + v.float().mean()
    if total is None:
        raise RuntimeError("the model returned no floating output to train on")
    return total


# ----------------------------------------------------------------------------------------------
# The measured training step

@dataclass
class StepMeasurement:
    steps: int = 0
    max_allocated: int = 0
    max_reserved: int = 0
    peak_phase: str = ""
    phase_peaks: dict = field(default_factory=dict)   # of the last step
    step_seconds: float = 0.0


class MemoryProbe:
    """Peak memory per phase on CUDA: the caching allocator's own counters (max allocated, max
    reserved), reset at the start of each phase. begin/end bracket one run (nothing to do here)."""

    def __init__(self, torch_module):
        self.torch = torch_module
        self.records: list = []

    def begin(self):
        self.records = []

    def end(self):
        pass

    def release(self):
        return contextlib.nullcontext()

    def start_phase(self, phase: str):
        self.torch.cuda.synchronize()
        self.torch.cuda.reset_peak_memory_stats()

    def end_phase(self):
        self.torch.cuda.synchronize()
        self.records.append((int(self.torch.cuda.max_memory_allocated()), int(self.torch.cuda.max_memory_reserved())))

    def peaks(self) -> list:
        """(allocated, reserved) of every phase so far, in order."""
        records, self.records = self.records, []
        return records


class CpuMemoryProbe:
    """Peak of live tensor bytes per phase on the CPU, from torch.profiler's memory events.

    With profile_memory=True PyTorch's CPU allocator reports every allocation, and the free of every
    block allocated while profiling, to the profiler, so the running total from begin() is exactly
    the bytes the run allocated and still holds. (The allocator remembers a block's size only while
    profiling: a block allocated then and freed after leaves a stale entry, which a later block at
    the same address, allocated unprofiled and freed while profiling, would be reported with; so a
    run's tensors are freed under release(), and nothing else is freed across runs.)
    begin() comes before the model is built, so the total counts weights, gradients, optimizer state
    and activations, as torch.cuda.max_memory_allocated does on a GPU. Phases are record_function
    ranges; a phase's peak is the total at its start or after any event inside it. There is no
    caching allocator on the CPU: reserved is reported as 0. The allocator reports to the profiler
    of the thread that allocates; the CPU autograd engine runs backward on the calling thread."""

    PREFIX = "measure::"

    def __init__(self, torch_module):
        self.torch = torch_module
        self.profiler = None
        self.ranges: list = []
        self.events: list = []

    def begin(self):
        from torch.profiler import ProfilerActivity, profile
        self.end()
        self.ranges, self.events = [], []
        self.profiler = profile(activities=[ProfilerActivity.CPU], profile_memory=True)
        self.profiler.__enter__()

    def end(self):
        """Stops profiling (idempotent) and keeps the memory events and the phase ranges."""
        if self.profiler is None:
            return
        prof, self.profiler = self.profiler, None
        prof.__exit__(None, None, None)
        events = prof.profiler.kineto_results.events()
        cpu = self.torch.autograd.DeviceType.CPU
        self.events = sorted((e.start_ns(), int(e.nbytes())) for e in events
                             if e.name() == "[memory]" and e.device_type() == cpu)
        self.ranges = sorted((e.start_ns(), e.start_ns() + e.duration_ns()) for e in events
                             if e.name().startswith(self.PREFIX))

    @contextlib.contextmanager
    def release(self):
        """Frees the run's tensors (the with-block) while profiling, so none leaves a stale entry."""
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU], profile_memory=True):
            yield

    def start_phase(self, phase: str):
        self._range = self.torch.profiler.record_function(self.PREFIX + phase)
        self._range.__enter__()

    def end_phase(self):
        self._range.__exit__(None, None, None)

    def peaks(self) -> list:
        self.end()
        return [(peak, 0) for peak in running_peaks(self.events, self.ranges)]


def running_peaks(events: list, ranges: list) -> list:
    """For (time, signed bytes) events sorted by time and (start, end) ranges sorted by start: the
    peak of the running total within each range, counting the total live when the range opens."""
    peaks = []
    total, i = 0, 0
    for start, end in ranges:
        while i < len(events) and events[i][0] < start:
            total += events[i][1]
            i += 1
        peak = total
        while i < len(events) and events[i][0] <= end:
            total += events[i][1]
            peak = max(peak, total)
            i += 1
        peaks.append(peak)
    return peaks


def train_steps(model, inputs: dict, optimizer, autocast, probe, steps: int = STEPS) -> StepMeasurement:
    """`steps` training steps; the peak is the largest of every phase of every step (the optimizer
    state exists from the first step on, so the steady state is reached by the second)."""
    m = StepMeasurement()
    model.train()
    for _ in range(steps):
        t0 = time.perf_counter()
        probe.start_phase("forward_end")
        with autocast():
            loss = loss_of(model(**inputs))
        probe.end_phase()
        probe.start_phase("backward")
        loss.backward()
        del loss
        probe.end_phase()
        probe.start_phase("optimizer_step")
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        probe.end_phase()
        m.step_seconds = time.perf_counter() - t0
        m.steps += 1
    records = probe.peaks()
    for step in range(m.steps):
        peaks = dict(zip(PHASES, records[step * len(PHASES):(step + 1) * len(PHASES)]))
        for phase in PHASES:
            allocated, reserved = peaks[phase]
            if allocated > m.max_allocated:
                m.max_allocated = allocated
                m.peak_phase = phase
            m.max_reserved = max(m.max_reserved, reserved)
        m.phase_peaks = {p: peaks[p][0] for p in PHASES}
    return m


# ----------------------------------------------------------------------------------------------
# One run of one case (possibly on an emulated card)

def is_oom(exc: BaseException) -> bool:
    import torch
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    return (oom_type is not None and isinstance(exc, oom_type)) or "out of memory" in str(exc).lower()


class Runner:
    def __init__(self, device: str, dry_run: bool, run_id: str, baseline: Optional[int]):
        import torch
        self.torch = torch
        self.device = device
        self.cuda = device.startswith("cuda")
        self.dry_run = dry_run
        self.run_id = run_id
        self.baseline = baseline
        self.monitor = DeviceMonitor(torch) if self.cuda else None
        self.probe = MemoryProbe(torch) if self.cuda else CpuMemoryProbe(torch)
        self.environment = self._environment()
        self.deadline = float("inf")  # monotonic time after which a sweep starts no new probe

    def _environment(self) -> dict:
        torch = self.torch
        env = {"torch_version": torch.__version__, "python_version": platform.python_version(),
               "cuda_version": getattr(torch.version, "cuda", None) or "", "gpu_name": "", "driver_version": "",
               "total_memory_bytes": 0}
        for module, key in (("transformers", "transformers_version"), ("peft", "peft_version")):
            try:
                env[key] = __import__(module).__version__
            except ImportError:
                env[key] = ""
        if self.cuda:
            props = torch.cuda.get_device_properties(0)
            env.update(gpu_name=props.name, total_memory_bytes=int(props.total_memory),
                       driver_version=self.monitor.driver_version())
        return env

    def warm_up(self):
        """Loads cuBLAS and the autocast kernels once, so the first case's context matches the rest."""
        if not self.cuda:
            return
        torch = self.torch
        a = torch.randn(256, 256, device=self.device, requires_grad=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            (a @ a).float().sum().backward()
        del a
        torch.cuda.synchronize()

    def context_bytes(self) -> int:
        """Device memory outside PyTorch's allocator, now (CUDA context, kernel images, cuBLAS handles)."""
        torch = self.torch
        torch.cuda.synchronize()
        return self.monitor.used_bytes() - int(torch.cuda.memory_reserved()) - (self.baseline or 0)

    def run(self, case: Case, batch: int, card: str = "", card_bytes: Optional[int] = None) -> dict:
        torch = self.torch
        row = self._row_base(case, batch, card, card_bytes)
        limit = None
        if self.cuda:
            self._release()
            if card_bytes:
                limit = card_bytes - self.context_bytes()
                total = row["total_memory_bytes"]
                if limit <= 0 or limit > total:
                    row.update(status="error", error=f"cannot emulate {card}: limit {limit} of {total} bytes")
                    return row
                torch.cuda.set_per_process_memory_fraction(limit / total, 0)
                row["allocator_limit_bytes"] = limit
        model = optimizer = inputs = trainable = None
        try:
            full = case.mode == "full"
            dtype = torch.float32 if full else torch.bfloat16
            self.probe.begin()
            model, attention = build_model(case, self.device, dtype)
            row["attention"] = attention
            row["parameters"] = sum(p.numel() for p in model.parameters())
            config = model.config
            if not full:
                model = apply_lora(model, case)
            trainable = [p for p in model.parameters() if p.requires_grad]
            row["trainable_parameters"] = sum(p.numel() for p in trainable)
            optimizer = torch.optim.AdamW(trainable, lr=1e-5)
            inputs = make_inputs(case, config, batch, self.device, dtype)
            device_type = "cuda" if self.cuda else "cpu"
            autocast = lambda: torch.autocast(device_type, dtype=torch.bfloat16)  # noqa: E731
            m = train_steps(model, inputs, optimizer, autocast, self.probe)
            row.update(status="ok", steps=m.steps, step_seconds=f"{m.step_seconds:.4f}")
            if self.cuda:
                used = self.monitor.used_bytes()
                reserved_now = int(torch.cuda.memory_reserved())
                row.update(max_allocated_bytes=m.max_allocated, max_reserved_bytes=m.max_reserved,
                           peak_phase=m.peak_phase, forward_peak_bytes=m.phase_peaks["forward_end"],
                           backward_peak_bytes=m.phase_peaks["backward"],
                           optimizer_peak_bytes=m.phase_peaks["optimizer_step"], device_used_bytes=used,
                           reserved_at_sample_bytes=reserved_now,
                           context_bytes=used - reserved_now - (self.baseline or 0))
            else:
                # No caching allocator and no context on the CPU: the live-bytes peaks are all there is,
                # and an emulated card is a cap on them, checked after the run.
                row.update(max_allocated_bytes=m.max_allocated, peak_phase=m.peak_phase,
                           forward_peak_bytes=m.phase_peaks["forward_end"], backward_peak_bytes=m.phase_peaks["backward"],
                           optimizer_peak_bytes=m.phase_peaks["optimizer_step"], allocator_limit_bytes=card_bytes or "")
                if card_bytes and m.max_allocated > card_bytes:
                    row.update(status="oom", error=f"emulated {card}: peak {m.max_allocated} bytes over its {card_bytes}")
        except Exception as e:  # noqa: BLE001 - every failure becomes a row, the sweep goes on
            row.update(status="oom" if self.cuda and is_oom(e) else "error", error=_one_line(e))
        finally:
            self.probe.end()
            with self.probe.release():
                del model, optimizer, inputs, trainable
                self._release()
            if limit is not None:
                torch.cuda.set_per_process_memory_fraction(1.0, 0)
        return row

    def _release(self):
        gc.collect()
        if self.cuda:
            self.torch.cuda.empty_cache()
            self.torch.cuda.reset_peak_memory_stats()

    def _row_base(self, case: Case, batch: int, card: str, card_bytes: Optional[int]) -> dict:
        cfg = HERE / case.config
        row = {c: "" for c in COLUMNS}
        row.update(self.environment)
        row.update(schema=SCHEMA, run_id=self.run_id,
                   case_id=case.id if not card else f"{case.id}@{card}/b{batch}",
                   model_type=case.model_type, config=case.config,
                   config_sha256=hashlib.sha256(cfg.read_bytes()).hexdigest(), **{"class": case.class_name},
                   mode=case.mode, batch=batch, seq_len=case.seq_len or "", image_size=case.image_size or "",
                   attention="sdpa", optimizer="adamw", lora_rank=case.lora_rank, lora_dropout=case.lora_dropout,
                   card=card, card_bytes=card_bytes or "", steps=0,
                   device_source=self.monitor.source if self.monitor else "",
                   device_baseline_bytes=self.baseline if self.baseline is not None else "",
                   device="cuda" if self.cuda else "cpu", dry_run=1 if self.dry_run else 0,
                   timestamp=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
        return row

    def run_case(self, case: Case, cards: dict[str, int], emit: Callable[[dict], None]):
        """Emits one row for a plain case; for a sweep, one row per probed batch on each card."""
        if not case.sweep_cards:
            emit(self.run(case, case.batch))
            return
        for card in case.sweep_cards:
            if card not in cards:
                raise CaseError(f"case {case.id}: card {card!r} is neither in data/cards.json nor in the case list's cards")

            def fits(batch, card=card):
                if time.monotonic() > self.deadline:
                    raise TimeoutError("time budget spent")
                row = self.run(case, batch, card, cards[card])
                emit(row)
                if row["status"] == "error":
                    raise RuntimeError(f"{row['case_id']}: {row['error']}")
                return row["status"] == "ok"
            try:
                find_max_batch(fits, case.sweep_max_batch, start=case.batch)
            except (RuntimeError, TimeoutError) as e:
                print(f"measure: sweep of {case.id} on {card} stopped: {e}", file=sys.stderr)
                if isinstance(e, TimeoutError):
                    return


def _one_line(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".replace("\n", " ").replace("\r", " ")
    return text[:300]


# ----------------------------------------------------------------------------------------------
# CSV output

def csv_line(row: dict) -> str:
    def cell(v):
        s = "" if v is None else str(v)
        if any(ch in s for ch in ',"\n\r') or s.startswith("#"):
            s = '"' + s.replace('"', '""') + '"'
        return s
    return ",".join(cell(row.get(c, "")) for c in COLUMNS) + "\n"


class CsvWriter:
    """Appends whole rows and flushes each, so a killed run leaves only complete rows."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        new = not self.path.exists() or self.path.stat().st_size == 0
        self.f = open(self.path, "a", encoding="utf-8", newline="")
        if new:
            self.f.write(",".join(COLUMNS) + "\n")
            self.f.flush()

    def write(self, row: dict):
        self.f.write(csv_line(row))
        self.f.flush()
        os.fsync(self.f.fileno())

    def close(self):
        self.f.close()


# ----------------------------------------------------------------------------------------------
# Command line

def default_out(cases_path: Path, gpu: str) -> Path:
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    slug = "".join(ch if ch.isalnum() else "-" for ch in (gpu or "cpu")).strip("-").lower()
    return MEASURED_DIR / f"{stamp}-{slug}-{Path(cases_path).stem}.csv"


def under_measured(path: Path) -> bool:
    try:
        Path(path).resolve().relative_to(MEASURED_DIR.resolve())
        return True
    except ValueError:
        return False


def _importable(module: str) -> bool:
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def main(argv: Optional[Iterable[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("cases", type=Path, help="case list, e.g. calibration/cases_run1.json")
    ap.add_argument("--out", type=Path, help="CSV to append to (default: calibration/measured/<time>-<gpu>-<cases>.csv)")
    ap.add_argument("--only", action="append", default=[], help="run only cases whose id contains this (repeatable)")
    ap.add_argument("--time-budget", type=float, default=480.0,
                    help="start no new case after this many seconds (default 480: one ~8 minute GPU session)")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                    help="cuda (default): measure on the GPU; cpu: run the harness on the CPU (use a tiny case "
                         "list), rows carry dry_run=1 and the profiler's live-bytes peaks")
    ap.add_argument("--dry-run", action="store_true", help="the same as --device cpu")
    ap.add_argument("--list", action="store_true", help="print the expanded cases and exit (needs no torch)")
    args = ap.parse_args(list(argv) if argv is not None else None)
    if args.dry_run:
        args.device = "cpu"
    cpu = args.device == "cpu"

    try:
        cases = load_cases(args.cases)
        real_cards = load_cards()
        cards = {**real_cards, **load_case_cards(args.cases, real_cards)}
    except CaseError as e:
        print(f"measure: error: {e}", file=sys.stderr)
        return 2
    if args.only:
        cases = [c for c in cases if any(s in c.id for s in args.only)]
    if args.list:
        for c in cases:
            shape = f"seq {c.seq_len}" if c.seq_len else f"{c.image_size} px"
            sweep = f" sweep {','.join(c.sweep_cards)} up to {c.sweep_max_batch}" if c.sweep_cards else ""
            print(f"{c.id}: {c.class_name} {c.mode} batch {c.batch} {shape}{sweep}")
        return 0

    if cpu and (args.out is None or under_measured(args.out)):
        print(f"measure: error: a CPU run is not a GPU measurement; give --out outside {MEASURED_DIR}", file=sys.stderr)
        return 2
    baseline = None if cpu else idle_device_used_bytes()  # before this process touches CUDA
    import torch
    if not cpu and not torch.cuda.is_available():
        print("measure: error: no CUDA device (use --device cpu for a CPU run of the harness)", file=sys.stderr)
        return 2
    missing = [m for m in ("transformers", "peft") if not _importable(m)]
    if missing:
        print(f"measure: error: {' and '.join(missing)} not importable: every case builds a transformers model "
              f"(and LoRA cases a peft adapter)", file=sys.stderr)
        return 2
    run_id = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ") + f"-{os.getpid()}"
    runner = Runner(args.device, cpu, run_id, baseline)
    out = args.out or default_out(args.cases, runner.environment["gpu_name"])
    runner.warm_up()
    writer = CsvWriter(out)
    started = time.monotonic()
    runner.deadline = started + args.time_budget
    counts = {"ok": 0, "oom": 0, "error": 0}
    skipped = []

    def emit(row):
        writer.write(row)
        counts[row["status"]] = counts.get(row["status"], 0) + 1
        figure = f" reserved {int(row['max_reserved_bytes']) / 2**30:.2f} GiB" if row["max_reserved_bytes"] != "" else ""
        if cpu and row["max_allocated_bytes"] != "":
            figure = f" peak {int(row['max_allocated_bytes']) / 2**20:.2f} MiB live on the CPU"
        print(f"measure: {row['case_id']}: {row['status']}{figure} {row['error']}".rstrip(), file=sys.stderr)

    try:
        for case in cases:
            if time.monotonic() - started > args.time_budget:
                skipped.append(case.id)
                continue
            try:
                runner.run_case(case, cards, emit)
            except CaseError as e:
                print(f"measure: error: {e}", file=sys.stderr)
                return 2
    finally:
        writer.close()
    print(f"measure: {counts['ok']} ok, {counts['oom']} out of memory, {counts['error']} failed -> {out}",
          file=sys.stderr)
    if skipped:
        print(f"measure: time budget spent; not run: {' '.join(skipped)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
