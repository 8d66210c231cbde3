"""to_pandas() is there when pandas is, and pandas is never required."""
import subprocess
import sys

import neurarch
import pytest


def test_tables_as_dataframes():
    pytest.importorskip("pandas")
    report = neurarch.trace("gpt2")
    tensors = report.to_pandas()
    assert list(tensors["name"]) == [t["name"] for t in report.tensors]
    assert list(tensors.columns[:5]) == ["name", "shape", "dtype", "kind", "layer"]
    layers = report.to_pandas("layers")
    assert list(layers["parameters"]) == [layer["parameters"] for layer in report.layers]
    with pytest.raises(ValueError, match="plan"):
        report.to_pandas("cards")
    planned = report.plan()
    cards = planned.to_pandas("cards")
    assert list(cards["card"]) == [c["card"] for c in planned.training_plan["cards"]]
    with pytest.raises(ValueError, match="table must be one of"):
        report.to_pandas("weights")


def test_without_pandas_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # makes `import pandas` fail
    with pytest.raises(ImportError, match="pip install pandas"):
        neurarch.trace("gpt2").to_pandas()


def test_importing_neurarch_does_not_import_pandas():
    run = subprocess.run([sys.executable, "-c", "import sys, neurarch; neurarch.trace('gpt2'); "
                          "print('pandas' in sys.modules)"], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == "False", run.stderr
