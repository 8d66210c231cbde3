"""Shared fixtures: where the repository is, and how to run the command line the binding must match.

The reference command is $NEURARCH_TRACE_BIN (scripts/test.sh points it at build/neurarch-trace,
the native binary) or else the `neurarch-trace` script this package installed beside the running
interpreter. Every test runs offline: HF_HUB_OFFLINE keeps the resolver from asking the Hub.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
os.environ["HF_HUB_OFFLINE"] = "1"


def catalogue_files():
    return sorted((REPO / "data" / "catalogue").glob("*.json"))


def catalogue_id(path):
    return path.stem.replace("--", "/")


def reference_command():
    explicit = os.environ.get("NEURARCH_TRACE_BIN")
    if explicit:
        return explicit
    beside = Path(sys.executable).parent / "neurarch-trace"
    if beside.exists():
        return str(beside)
    found = shutil.which("neurarch-trace")
    if found:
        return found
    pytest.fail("no neurarch-trace to compare with: set NEURARCH_TRACE_BIN or install the package")


class Cli:
    def __init__(self, command):
        self.command = command

    def __call__(self, *args, stdin=None):
        return subprocess.run([self.command, *args], input=stdin, capture_output=True, text=True,
                              env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=120)


@pytest.fixture(scope="session")
def cli():
    return Cli(reference_command())


def without_provenance(report_dict):
    """The report less what names where the config came from (id, source, origin)."""
    d = dict(report_dict)
    d["model"] = {k: v for k, v in d["model"].items() if k not in ("id", "source", "config", "revision")}
    return d
