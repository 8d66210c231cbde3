#!/usr/bin/env python3
"""What `save_pretrained` would write for a config and a class, from the pinned transformers itself.

Test infrastructure (issue 22), not part of the product: it needs torch and transformers
(tests/reference/requirements.txt, installed by scripts/test.sh into .venv-reference/).

The class is built on PyTorch's meta device (no weights), then the state dict goes through the
same steps `PreTrainedModel.save_pretrained` takes before writing safetensors:
  1. `state_dict()` (parameters and persistent buffers),
  2. minus `_keys_to_ignore_on_save` (post_init gathers them from every sub-model),
  3. minus tied duplicates (`remove_tied_weights_from_state_dict`: aliases found by tensor identity,
     the name kept chosen by `_tied_weights_keys`),
  4. `revert_weight_conversion`: 5.x fuses some weights in memory (e.g. MoE experts into one 3-D
     tensor) and splits them back to the checkpoint's names on save, by default.
The result is written in the schema of ../shared/groundtruth/ (see its README), plus `dtypes`
(every saved tensor's dtype) and the transformers / torch versions.

  reference_tensors.py --model-type gpt2 --class GPT2LMHeadModel [-o out.json]
  reference_tensors.py --config path/to/config.json [--class NAME] [-o out.json]
  reference_tensors.py --batch jobs.json       # [{"output": path, "model_type"|"config": ..., "class": ...}, ...]
  reference_tensors.py --model-types           # every model_type transformers registers, one per line
  reference_tensors.py --plan plan.json -o out.json   # {model_type: [class, ...]} -> default configs and classes
  reference_tensors.py --default-config gpt2   # the model type's default config.json, as to_json_string writes it
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import tempfile
import traceback
import warnings


def _quiet_imports():
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")
    warnings.filterwarnings("ignore")
    import torch  # noqa: F401
    import transformers

    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()


def _dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def model_types() -> list[str]:
    from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES

    return sorted(CONFIG_MAPPING_NAMES)


def default_config(model_type: str, overrides: dict | None = None):
    """The model type's default config; overrides for the few whose defaults do not build (as the shared fixtures)."""
    from transformers import AutoConfig

    return AutoConfig.for_model(model_type, **(overrides or {}))


def default_config_json(model_type: str, overrides: dict | None = None) -> dict:
    """The model type's default config as save_pretrained's config.json would hold it (every key)."""
    return json.loads(default_config(model_type, overrides).to_json_string(use_diff=False))


def _first_line(e: BaseException) -> str:
    lines = [line.strip() for line in str(e).splitlines() if line.strip()]
    return f"{type(e).__name__}: {lines[0] if lines else ''}"[:500]


def config_from_dict(d: dict):
    """A config.json dict parsed the way from_pretrained parses the file (via a temporary folder)."""
    from transformers import AutoConfig

    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "config.json"), "w") as f:
            json.dump(d, f)
        return AutoConfig.from_pretrained(tmp)


def base_class_name(config) -> str | None:
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    return MODEL_MAPPING_NAMES.get(config.model_type)


def resolve_class(name: str, config):
    import transformers

    cls = getattr(transformers, name, None)
    if cls is None:
        raise LookupError(f"class {name} does not exist in transformers {transformers.__version__}")
    wanted = getattr(cls, "config_class", None)
    if wanted is not None and not isinstance(config, wanted):
        raise LookupError(f"class {name} takes {wanted.__name__}, not {type(config).__name__}")
    return cls


@contextlib.contextmanager
def _silenced():
    """Model constructors print (deprecation notes, rope warnings); keep stdout for the answer."""
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def build(cls, config):
    """The model as `AutoModel.from_config` builds it (`_from_config`: in the config's dtype, float32 when it names
    none), on the meta device; when a constructor needs real buffer values (it reads one back), parameters on meta
    and buffers on the CPU (accelerate's init_empty_weights). Returns (model, device description)."""
    import copy

    import torch

    try:
        with _silenced(), torch.device("meta"):
            return cls._from_config(copy.deepcopy(config)), "meta"
    except Exception as meta_error:  # noqa: BLE001 - the reference raising is an answer, recorded below
        from accelerate import init_empty_weights

        try:
            with _silenced(), init_empty_weights(include_buffers=False):
                return cls._from_config(copy.deepcopy(config)), "meta parameters, cpu buffers"
        except Exception:  # noqa: BLE001
            raise meta_error from None


def saved_tensors(model) -> dict:
    """The fields of a ground-truth case for an already built model."""
    from transformers.core_model_loading import revert_weight_conversion
    from transformers.modeling_utils import remove_tied_weights_from_state_dict

    full = model.state_dict()
    buffers = dict(model.named_buffers(remove_duplicate=False))
    params = dict(model.named_parameters(remove_duplicate=False))
    non_persistent = {n: list(t.shape) for n, t in buffers.items() if n not in full}

    ignore = set(getattr(model, "_keys_to_ignore_on_save", None) or [])
    state = {k: v for k, v in full.items() if k not in ignore}
    ignored = sorted(k for k in full if k in ignore)

    def obj(name):  # tied tensors are one Parameter object under several names
        return params.get(name, buffers.get(name))

    problems = []
    try:
        kept = remove_tied_weights_from_state_dict(dict(state), model)
    except RuntimeError as e:
        # save_pretrained raises here (aliases not declared in _tied_weights_keys); what a checkpoint
        # holds then is one copy of each alias group: keep the first name in sorted order.
        problems.append("save_pretrained would raise: " + str(e).split("\n")[0][:300])
        seen: dict[int, str] = {}
        kept = {}
        for name in sorted(state):
            key = id(obj(name))
            if key in seen:
                continue
            seen[key] = name
            kept[name] = state[name]
    tied = sorted(set(state) - set(kept))
    owner = {id(obj(n)): n for n in kept}
    tied_to = {n: owner.get(id(obj(n)), "") for n in tied}

    saved = revert_weight_conversion(model, dict(kept))
    renamed = sorted(set(saved) - set(kept))

    tensors = {n: [int(d) for d in t.shape] for n, t in saved.items()}
    dtypes = {n: _dtype_name(t.dtype) for n, t in saved.items()}
    buffer_names = sorted(n for n in saved if n in buffers)
    return {
        "tensors": tensors,
        "dtypes": dtypes,
        "buffers": buffer_names,
        "buffer_dtypes": {n: dtypes[n] for n in buffer_names},
        "non_persistent_buffers": non_persistent,
        "num_tensors": len(tensors),
        "total_scalars": sum(_numel(s) for s in tensors.values()),
        "total_parameters": sum(_numel(s) for n, s in tensors.items() if n not in buffers),
        "tied": tied,
        "tied_to": tied_to,
        "keys_ignored_on_save": ignored,
        "converted_on_save": renamed,
        "problems": problems,
    }


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def case(job: dict) -> dict:
    """One ground-truth case. job: {"model_type": T} (its default config) or {"config": dict}, and "class"."""
    import torch
    import transformers

    out = {
        "transformers_version": transformers.__version__,
        "torch_version": torch.__version__.split("+")[0],
        "semantics": "save_pretrained",
    }
    try:
        if "config" in job:
            config = config_from_dict(job["config"])
            out["config_source"] = job.get("config_source", "a config.json, parsed by AutoConfig.from_pretrained")
        else:
            overrides = job.get("overrides") or {}
            config = default_config(job["model_type"], overrides)
            out["config_source"] = f"AutoConfig.for_model({job['model_type']!r}) defaults" + (
                f", with {json.dumps(overrides, sort_keys=True)} (the defaults do not build)" if overrides else "")
        out["model_type"] = config.model_type
        name = job.get("class")
        if name:
            out["class_source"] = job.get("class_source", "argument")
        else:
            archs = getattr(config, "architectures", None) or []
            name = archs[0] if archs else base_class_name(config)
            out["class_source"] = "architectures" if archs else "auto_base"
        out["class"] = name
        cls = resolve_class(name, config)
        model, device = build(cls, config)
        out["build_device"] = device
        out.update(saved_tensors(model))
        out["config"] = json.loads(config.to_json_string(use_diff=False))
    except Exception as e:  # noqa: BLE001 - a reference that cannot build is an answer to record
        out["error"] = _first_line(e)
        out["traceback_tail"] = traceback.format_exc().strip().splitlines()[-1][:500]
    return out


def plan(wanted: dict[str, list[str]], overrides: dict[str, dict] | None = None) -> dict:
    """For each model type and candidate classes (a family's classes may span several model types): its default
    config.json, or why there is none, and which classes take that model type's config."""
    import torch
    import transformers

    registered = set(model_types())
    out = {"transformers_version": transformers.__version__, "torch_version": torch.__version__.split("+")[0],
           "registered": sorted(registered), "model_types": {}}
    for model_type, classes in sorted(wanted.items()):
        entry: dict = {"classes": [], "other": {}}
        out["model_types"][model_type] = entry
        if model_type not in registered:
            entry["error"] = f"model_type {model_type!r} is not registered in transformers {transformers.__version__}"
            continue
        try:
            config = default_config(model_type, (overrides or {}).get(model_type))
            entry["config"] = json.loads(config.to_json_string(use_diff=False))
        except Exception as e:  # noqa: BLE001
            entry["error"] = "default config: " + _first_line(e)
            continue
        for name in classes:
            cls = getattr(transformers, name, None)
            wanted_config = getattr(cls, "config_class", None) if cls is not None else None
            if cls is None:
                entry["other"][name] = f"class {name} does not exist in transformers {transformers.__version__}"
            elif wanted_config is None or isinstance(config, wanted_config):
                entry["classes"].append(name)
            else:
                entry["other"][name] = f"takes {wanted_config.__name__} ({getattr(wanted_config, 'model_type', '?')})"
    return out


def _write_atomic(path: str, data: dict) -> None:
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--model-type", help="build the model type's default config")
    src.add_argument("--config", help="a config.json file")
    src.add_argument("--batch", help="a JSON list of jobs; each writes its own output file")
    src.add_argument("--model-types", action="store_true", help="list every model_type transformers registers")
    src.add_argument("--default-config", metavar="MODEL_TYPE", help="print a model type's default config.json")
    src.add_argument("--plan", help='a JSON {"classes": {model_type: [class, ...]}, "overrides": {model_type: {...}}}:'
                     " default configs and the classes each takes")
    ap.add_argument("--class", dest="class_name", help="class to build (default: architectures[0], else the base class)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=JSON",
                    help="override a default config's key (with --model-type / --default-config)")
    ap.add_argument("-o", "--output", help="write here (atomically) instead of stdout")
    a = ap.parse_args(argv)

    try:
        overrides = {k: json.loads(v) for k, v in (item.split("=", 1) for item in a.set)}
    except ValueError:
        ap.error("--set wants KEY=JSON, e.g. --set vocab_size=33")
    _quiet_imports()
    if a.model_types:
        print("\n".join(model_types()))
        return 0
    if a.default_config:
        print(json.dumps(default_config_json(a.default_config, overrides), indent=2, sort_keys=True))
        return 0
    if a.plan:
        with open(a.plan) as f:
            request = json.load(f)
        result = plan(request["classes"], request.get("overrides"))
        if a.output:
            _write_atomic(a.output, result)
        else:
            json.dump(result, sys.stdout, indent=1, sort_keys=True)
        return 0
    if a.batch:
        with open(a.batch) as f:
            jobs = json.load(f)
        for job in jobs:
            _write_atomic(job["output"], case(job))
        return 0
    if a.config:
        try:
            with open(a.config) as f:
                job = {"config": json.load(f), "config_source": a.config}
        except (OSError, ValueError) as e:
            print(f"reference_tensors: {a.config}: {e}", file=sys.stderr)
            return 2
    else:
        job = {"model_type": a.model_type, "overrides": overrides}
    if a.class_name:
        job["class"] = a.class_name
    result = case(job)
    if a.output:
        _write_atomic(a.output, result)
    else:
        json.dump(result, sys.stdout, indent=1, sort_keys=True)
        print()
    if "error" in result:
        print(f"reference_tensors: {result['error']}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
