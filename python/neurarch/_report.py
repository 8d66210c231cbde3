"""Report: the Python face of the C++ report that every neurarch-trace output is rendered from."""
import json

# Columns of each table to_pandas() knows, in the order of the JSON contract (neurarch.report/v1).
_TABLES = {
    "tensors": ("name", "shape", "dtype", "kind", "layer", "tied_to"),
    "layers": ("index", "name", "type", "output_shape", "parameters", "block", "module", "attention", "feed_forward"),
    "findings": ("rule", "severity", "node", "message", "fix"),
    "config_reads": ("key", "value", "from"),
    "cards": ("card", "memory_bytes", "full_max_batch", "lora_max_batch", "full_fsdp_cards"),
    "activations": ("node", "full_bytes_per_sample", "lora_bytes_per_sample"),
}


class Diagram(str):
    """SVG text that Jupyter displays as a picture."""

    def _repr_svg_(self):
        return str(self)


class Report:
    """A traced model. Immutable: ``plan()`` returns a new report.

    The properties are parts of ``to_dict()``, the ``neurarch.report/v1`` JSON that
    ``neurarch-trace --format json`` prints (see the README for every key).
    """

    __slots__ = ("_native", "_parsed")

    def __init__(self, native):
        self._native = native
        self._parsed = None

    # ------------------------------------------------------------------ renderings of the core

    def to_json(self):
        """The JSON report, byte for byte what ``neurarch-trace --format json`` writes."""
        return self._native.json()

    def to_markdown(self):
        """What ``neurarch-trace --format markdown`` writes."""
        return self._native.markdown()

    def diagram(self):
        """The architecture diagram as SVG text: what ``neurarch-trace --format svg`` writes. Jupyter
        draws it (the returned string has ``_repr_svg_``); ``open("m.svg", "w").write(r.diagram())`` saves it."""
        return Diagram(self._native.diagram())

    def to_text(self, tensors=False):
        """What ``neurarch-trace`` writes (``tensors=True``: with ``--tensors``)."""
        return self._native.text(tensors)

    def to_dict(self):
        """The JSON report as Python objects (a fresh copy on every call)."""
        return json.loads(self.to_json())

    def plan(self, **options):
        """A new report with the training plan: memory, card fit, split, cost.

        Keywords are ``neurarch-trace --plan``'s flags with underscores: ``batch``, ``attention``
        ("sdpa" | "eager"), ``optimizer`` ("adamw" | "adamw-fused" | "sgd-momentum" | "adam-8bit"),
        ``grad_checkpointing``, ``lora_rank``, ``lora_dropout``, ``lora_targets`` (list of str),
        ``qlora``, ``no_autocast``, ``card``, ``cards`` (path), ``runtime`` (path), ``epochs``,
        ``global_batch``, ``samples``. The result equals ``trace(model, plan=True, **options)``.
        """
        return Report(self._native.plan(options))

    # ------------------------------------------------------------------ parts of the JSON report

    @property
    def _data(self):
        if self._parsed is None:
            self._parsed = self.to_dict()
        return self._parsed

    @property
    def model(self):
        """{"id", "revision", "model_type", "class", "source", "config", "reference"}"""
        return self._data["model"]

    @property
    def layers(self):
        """Graph nodes in order, each a dict: index, name, type, output_shape, parameters, ..."""
        return self._data["layers"]

    @property
    def tensors(self):
        """Every tensor of the checkpoint: name, shape, dtype, kind ("parameter" | "buffer"), layer."""
        return self._data["tensors"]

    @property
    def findings(self):
        """Verifier findings: rule, severity, node, message, fix."""
        return self._data["findings"]

    @property
    def parameters(self):
        """{"derived", "trainable", "checkpoint", "delta", "delta_percent"}"""
        return self._data["parameters"]

    @property
    def forward_pass(self):
        """{"ok", "node", "reason"}"""
        return self._data["forward_pass"]

    @property
    def notes(self):
        return self._data["notes"]

    @property
    def config_reads(self):
        """Every config key the family read and whether it came from the config or a default."""
        return self._data["config_reads"]

    @property
    def training_plan(self):
        """The "plan" section (None until ``plan()`` or ``trace(..., plan=True)``)."""
        return self._data["plan"]

    # ------------------------------------------------------------------ interop

    def to_pandas(self, table="tensors"):
        """One table of the report as a pandas DataFrame (pandas is optional; import it yourself).

        ``table``: "tensors", "layers", "findings", "config_reads", or, on a planned report,
        "cards" and "activations".
        """
        try:
            import pandas
        except ImportError as e:
            raise ImportError("Report.to_pandas() needs pandas, which neurarch does not require: pip install pandas") from e
        if table not in _TABLES:
            raise ValueError(f"table must be one of {', '.join(_TABLES)}, got {table!r}")
        data = self._data
        if table in ("cards", "activations"):
            if data["plan"] is None:
                raise ValueError(f"the {table!r} table is part of the plan: call report.plan(...) first")
            rows = data["plan"][table]
        else:
            rows = data[table]
        columns = [c for c in _TABLES[table] if any(c in row for row in rows)] if rows else list(_TABLES[table])
        return pandas.DataFrame.from_records(rows, columns=columns)

    def to_html(self):
        """The server's model-page fragment (the same C++ renderer), stylesheet inlined."""
        return self._native.html()

    def _repr_html_(self):
        return self.to_html()

    def _repr_markdown_(self):
        return self.to_markdown()

    def __str__(self):
        return self.to_text()

    def __repr__(self):
        m, p = self.model, self.parameters
        planned = ", planned" if self._native.has_plan else ""
        return (
            f"<neurarch.Report {m['id']} ({m['class']}): {p['derived']:,} parameters, "
            f"{self._data['layer_count']} layers{planned}>"
        )
