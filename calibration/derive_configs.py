#!/usr/bin/env python3
"""Regenerates calibration/configs/*.json from configs/manifest.json and ../shared (the project's
ground truth). Each config is the source config less the manifest's "remove" keys, with its overrides applied, written with
sorted keys so that a regeneration is byte-for-byte reproducible.

    python3 calibration/derive_configs.py            # write
    python3 calibration/derive_configs.py --check    # exit 1 when a committed file differs
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONFIGS = HERE / "configs"
SHARED = HERE.parent.parent / "shared"


def derived(manifest: dict, shared: Path = SHARED) -> dict[str, str]:
    """File name -> the exact text it must hold."""
    out = {}
    for name, spec in manifest["configs"].items():
        source = json.loads((shared / spec["from"]).read_text())
        if spec["from"].startswith("groundtruth/"):
            source = source["config"]  # ground-truth files wrap the config with the reference's answers
        for key in spec.get("remove", []):
            # A key the source derives from others (layer_types from num_hidden_layers): overriding
            # those leaves it stale, and transformers 5 refuses a stale one.
            del source[key]
        source.update(spec.get("overrides", {}))
        out[name] = json.dumps(source, indent=2, sort_keys=True) + "\n"
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    ap.add_argument("--shared", type=Path, default=SHARED)
    args = ap.parse_args()
    manifest = json.loads((CONFIGS / "manifest.json").read_text())
    wanted = derived(manifest, args.shared)
    stale = []
    for name, text in wanted.items():
        path = CONFIGS / name
        if args.check:
            if not path.is_file() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print(f"derive_configs: differ from the manifest: {' '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
