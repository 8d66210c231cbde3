"""neurarch: a Hugging Face model's layer graph, tensors, checks and training plan, from its config alone.

A thin binding over the C++ core of ``neurarch-trace``: the same resolution, graph, planner and
renderers, so ``trace(model).to_json()`` is what ``neurarch-trace MODEL --format json`` prints.
"""
import json
import os
import sys
from collections.abc import Mapping

from ._errors import Error, InvalidInput, IoError, NotFound, Unsupported
from . import _native
from ._report import Report

__version__ = _native.__version__
__all__ = ["trace", "Report", "catalogue", "supported_model_types",
           "Error", "InvalidInput", "NotFound", "Unsupported", "IoError"]


def trace(model_or_config, **options):
    """Trace a model and return its :class:`Report`.

    ``model_or_config`` is what ``neurarch-trace`` takes (an ``org/name[@revision]`` id, a
    config.json or model folder, ``"-"`` for standard input) as a str or ``os.PathLike``, or a config
    already loaded: a dict, or anything with ``to_dict()`` such as a ``transformers`` ``PretrainedConfig``.

    Keywords are the command line's flags with underscores: ``class_name`` (``--class``),
    ``revision``, ``seq``, ``image_size``, ``checkpoint``, ``no_checkpoint``, ``offline``, ``plan``,
    and every keyword of :meth:`Report.plan` (any of which implies ``plan=True``).

    Raises :class:`InvalidInput`, :class:`NotFound`, :class:`Unsupported` or :class:`IoError`
    (all :class:`Error`) with the core's message; ``TypeError`` for an unknown keyword or a value
    of the wrong type. The GIL is released while the core works.
    """
    if isinstance(model_or_config, (str, os.PathLike)):
        spec = os.fspath(model_or_config)
        if not isinstance(spec, str):
            raise TypeError(f"model path must be str, got {type(spec).__name__}")
        if spec == "-":
            # Bounded like the command line's read: one character past the limit is enough to refuse.
            text = sys.stdin.read(_native.max_config_bytes + 1)
            return Report(_native.trace_config(text, "-", "stdin", "<stdin>", options))
        return Report(_native.trace(spec, options))

    to_dict = getattr(model_or_config, "to_dict", None)
    config = to_dict() if callable(to_dict) else model_or_config
    if not isinstance(config, Mapping):
        raise TypeError(
            "trace() takes a model id or path (str, os.PathLike), a config dict, or an object with to_dict(); "
            f"got {type(model_or_config).__name__}"
        )
    origin = f"<{type(model_or_config).__name__}.to_dict()>" if callable(to_dict) else "<dict>"
    try:
        text = json.dumps(config, allow_nan=False)
    except (TypeError, ValueError) as e:
        error = InvalidInput(f"{origin}: not representable as config.json: {e}")
        error.where = origin
        raise error from e
    name = config.get("_name_or_path")
    model_id = name if isinstance(name, str) and name else origin
    return Report(_native.trace_config(text, model_id, "python", origin, options))


def catalogue():
    """Ids of the published configs bundled into the core (these trace offline)."""
    return _native.catalogue()


def supported_model_types():
    """Every model_type the core builds, as ``neurarch-trace --list-model-types`` prints them."""
    return _native.supported_model_types()
