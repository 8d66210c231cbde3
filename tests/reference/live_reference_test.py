#!/usr/bin/env python3
"""The live reference test (issue 22): neurarch's tensors against what the pinned transformers saves.

For every supported model type's default config (each class `neurarch-trace --list-architectures` names for it
that takes that type's config) and every real config in ../shared/groundtruth/real and ../shared/corpus/configs,
tools/reference/reference_tensors.py builds the class on the meta device with the pinned transformers
(tests/reference/requirements.txt, in .venv-reference/) and lists what save_pretrained would write; the test then
compares `neurarch-trace CONFIG --class C --format json` tensor by tensor (name, shape, dtype) and the total.

Committed, reviewed lists next to this file:
  known_differences.json  every difference that is understood (case, what differs, which version says what, why);
                          the test fails on a difference not listed and on a listed one that no longer occurs
  not_buildable.json      cases the pinned transformers cannot build (type or class removed, constructor raises),
                          with the error; the same two-way check
  unsupported_model_types.txt   model types transformers registers that neurarch does not support (generated:
                          --write-coverage); the test fails when it is stale

The driver itself needs only the standard library; the reference runs in the venv's interpreter, two processes,
each building many models. Reference answers are cached under the build folder, keyed by the config, the class,
the tool's source and the transformers / torch versions, so a second run builds nothing.

Exit codes: 0 pass, 1 fail, 77 skipped (no reference venv, and CI is not set; under CI=true that fails).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TOOL = ROOT / "tools" / "reference" / "reference_tensors.py"
KNOWN = HERE / "known_differences.json"
NOT_BUILDABLE = HERE / "not_buildable.json"
COVERAGE = HERE / "unsupported_model_types.txt"
OVERRIDES = HERE / "default_overrides.json"
SKIP = 77

TORCH_TO_SAFETENSORS = {
    "float32": "F32", "float16": "F16", "bfloat16": "BF16", "float64": "F64", "int64": "I64", "int32": "I32",
    "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "BOOL", "float8_e4m3fn": "F8_E4M3", "float8_e5m2": "F8_E5M2",
}


def sha(*parts: str) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def canonical(d) -> str:
    return json.dumps(d, sort_keys=True, separators=(",", ":"))


def load_json(path: Path):
    return json.loads(path.read_text())


# ---------------------------------------------------------------- what neurarch supports
def architectures(neurarch: str) -> dict[str, list[str]]:
    """model_type -> the classes of its family, from `neurarch-trace --list-architectures`."""
    text = subprocess.run([neurarch, "--list-architectures"], check=True, capture_output=True, text=True).stdout
    out: dict[str, list[str]] = {}
    types: list[str] = []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("model_type:"):
            types = [t.strip() for t in s.split(":", 1)[1].split(",") if t.strip()]
        elif s.startswith("classes:"):
            classes = [c.strip() for c in s.split(":", 1)[1].split(",") if c.strip()]
            for t in types:
                out.setdefault(t, [])
                out[t] += [c for c in classes if c not in out[t]]
            types = []
    if not out:
        raise SystemExit("live reference: `neurarch-trace --list-architectures` listed nothing")
    return out


# ---------------------------------------------------------------- the reference, cached
class Reference:
    def __init__(self, python: str, cache: Path, jobs: int):
        self.python, self.cache, self.jobs = python, cache, jobs
        self.tool_hash = sha(TOOL.read_text(), (HERE / "requirements.txt").read_text())
        cache.mkdir(parents=True, exist_ok=True)

    def _run(self, args: list[str]) -> None:
        r = subprocess.run([self.python, str(TOOL), *args], capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit(f"live reference: {TOOL.name} {' '.join(args)} failed ({r.returncode}):\n{r.stderr[-3000:]}")

    def plan(self, wanted: dict[str, list[str]], overrides: dict[str, dict]) -> dict:
        body = {"classes": wanted, "overrides": overrides}
        path = self.cache / f"plan-{sha(self.tool_hash, canonical(body))}.json"
        if not path.exists():
            request = self.cache / "plan-request.json"
            request.write_text(canonical(body))
            self._run(["--plan", str(request), "-o", str(path)])
        return load_json(path)

    def cases(self, jobs: list[dict], versions: str) -> dict[str, dict]:
        """jobs: {"id", "class", "model_type" | "config"}; returns id -> the tool's answer."""
        todo, paths = [], {}
        for job in jobs:
            source = (job["model_type"] + canonical(job.get("overrides", {}))) if "model_type" in job else canonical(
                job["config"])
            path = self.cache / f"case-{sha(self.tool_hash, versions, job['class'], source)}.json"
            paths[job["id"]] = path
            if not path.exists():
                todo.append({k: v for k, v in job.items() if k != "id"} | {"output": str(path)})
        if todo:
            # Big default configs take longest; deal them round-robin by size so both processes end together.
            todo.sort(key=lambda j: -len(canonical(j.get("config", {})) + j["class"]))
            batches = [todo[i:: self.jobs] for i in range(self.jobs)]
            started = time.monotonic()
            print(f"live reference: building {len(todo)} reference cases in {self.jobs} processes", flush=True)
            with concurrent.futures.ThreadPoolExecutor(self.jobs) as pool:
                futures = []
                for i, batch in enumerate(b for b in batches if b):
                    request = self.cache / f"batch-{i}.json"
                    request.write_text(json.dumps(batch))
                    futures.append(pool.submit(self._run, ["--batch", str(request)]))
                for f in futures:
                    f.result()
            print(f"live reference: built them in {time.monotonic() - started:.0f} s", flush=True)
        return {i: load_json(p) for i, p in paths.items()}


# ---------------------------------------------------------------- neurarch's side
def neurarch_report(neurarch: str, config_path: Path, class_name: str) -> dict:
    r = subprocess.run([neurarch, str(config_path), "--class", class_name, "--format", "json", "--offline",
                        "--no-checkpoint"], capture_output=True, text=True)
    if r.returncode != 0:
        return {"error": f"exit {r.returncode}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else ''}"}
    return json.loads(r.stdout)


def shape_text(shape) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


INDEX = re.compile(r"(?<=\.)\d+(?=\.|$)")


def differences(ref: dict, ours: dict) -> list[str]:
    """Readable differences, with layer indices folded (`layers.*.`) and counted, sorted."""
    if "error" in ours:
        return [f"neurarch failed: {ours['error']}"]
    theirs = {n: (s, TORCH_TO_SAFETENSORS.get(ref["dtypes"][n], ref["dtypes"][n])) for n, s in ref["tensors"].items()}
    # A tensor with tied_to is an alias that save_pretrained drops; the rest is what the checkpoint holds.
    mine = {t["name"]: (t["shape"], t["dtype"]) for t in ours.get("tensors", []) if "tied_to" not in t}
    raw: list[str] = []
    for name, (shape, dtype) in theirs.items():
        if name not in mine:
            raw.append(f"missing {name} {shape_text(shape)}")
            continue
        if mine[name][0] != shape:
            raw.append(f"shape {name}: neurarch {shape_text(mine[name][0])}, reference {shape_text(shape)}")
        if mine[name][1] != dtype:
            raw.append(f"dtype {name}: neurarch {mine[name][1]}, reference {dtype}")
    for name, (shape, _) in mine.items():
        if name not in theirs:
            raw.append(f"unexpected {name} {shape_text(shape)}")
    folded: dict[str, int] = {}
    for line in raw:
        key = INDEX.sub("*", line)
        folded[key] = folded.get(key, 0) + 1
    out = sorted(k if n == 1 else f"{k} (x{n})" for k, n in folded.items())
    derived = ours.get("parameters", {}).get("derived")
    if derived != ref["total_scalars"]:
        out.append(f"total: neurarch {derived}, reference {ref['total_scalars']}")
    return out


# ---------------------------------------------------------------- cases
def real_config_jobs(shared: Path) -> list[dict]:
    jobs, seen = [], set()
    for path in sorted((shared / "groundtruth" / "real").glob("*.json")):
        gt = load_json(path)
        jobs.append({"id": f"real/{path.stem}", "config": gt["config"], "class": gt["class"],
                     "fixture": str(path), "class_source": gt.get("class_source", "argument")})
    for path in sorted((shared / "corpus" / "configs").glob("*.json")):
        config = load_json(path)
        archs = config.get("architectures") or []
        if not archs:
            continue  # the reference's choice of base class is only known inside transformers: the tool picks it
        jobs.append({"id": f"corpus/{path.stem}", "config": config, "class": archs[0], "class_source": "architectures",
                     "config_source": f"corpus/configs/{path.name}"})
    unique = []
    for job in jobs:
        key = (canonical(job["config"]), job["class"])
        if key not in seen:
            seen.add(key)
            unique.append(job)
    return unique


def fixture_view(shared: Path, case_id: str, ref: dict, ours: dict) -> str:
    """What the shared 4.47/4.57 fixture says about this case, to tell a 5.x change from a neurarch bug."""
    kind, rest = case_id.split("/", 1)
    path = shared / "groundtruth" / ("defaults" if kind == "defaults" else "real") / f"{rest}.json"
    if not path.exists():
        return "no shared fixture"
    gt = load_json(path)
    fix = dict(gt)
    fix["dtypes"] = {n: gt.get("buffer_dtypes", {}).get(n, ref["dtypes"].get(n, "float32")) for n in gt["tensors"]}
    vs_ours = differences(fix, ours)
    vs_ref = differences(fix, {"tensors": [{"name": n, "shape": s, "dtype": TORCH_TO_SAFETENSORS.get(
        ref["dtypes"][n], ref["dtypes"][n])} for n, s in ref["tensors"].items()],
        "parameters": {"derived": ref["total_scalars"]}})
    version = gt.get("transformers_version", "?")
    if not vs_ours:
        return f"fixture ({version}) agrees with neurarch"
    if not vs_ref:
        return f"fixture ({version}) agrees with the reference"
    return f"fixture ({version}) agrees with neither ({len(vs_ours)} vs neurarch, {len(vs_ref)} vs reference)"


def main() -> int:
    ap = argparse.ArgumentParser(description="neurarch against the live transformers reference")
    ap.add_argument("--neurarch", required=True, help="the neurarch-trace binary")
    ap.add_argument("--python", default=str(ROOT / ".venv-reference" / "bin" / "python"),
                    help="the reference venv's interpreter (scripts/test.sh makes .venv-reference/)")
    ap.add_argument("--shared", default=str(ROOT.parent / "shared"), help="the shared data folder")
    ap.add_argument("--work", required=True, help="scratch and cache folder (in the build tree)")
    ap.add_argument("--jobs", type=int, default=2, help="reference processes (default 2)")
    ap.add_argument("--only", nargs="*", help="only these model types (and real configs of them)")
    ap.add_argument("--write-observed", help="write every difference and build error seen, in the lists' format")
    ap.add_argument("--write-coverage", action="store_true", help=f"rewrite {COVERAGE.name}")
    a = ap.parse_args()
    ci = os.environ.get("CI", "") not in ("", "0", "false")

    if not Path(a.python).exists():
        msg = f"live reference: no reference venv at {a.python} (scripts/test.sh installs tests/reference/requirements.txt)"
        print(msg, flush=True)
        return 1 if ci else SKIP
    shared = Path(a.shared)
    if not (shared / "groundtruth").is_dir():
        print(f"live reference: {shared}/groundtruth not found", flush=True)
        return 1 if ci else SKIP
    started = time.monotonic()
    work = Path(a.work)
    ref = Reference(a.python, work / "cache", a.jobs)

    supported = architectures(a.neurarch)
    overrides = {t: e["overrides"] for t, e in load_json(OVERRIDES).items()}
    plan = ref.plan(supported, overrides)
    versions = f"transformers {plan['transformers_version']}, torch {plan['torch_version']}"

    jobs, unbuildable = [], {}
    for model_type, entry in sorted(plan["model_types"].items()):
        if a.only and model_type not in a.only:
            continue
        if "error" in entry:
            unbuildable[f"defaults/{model_type}"] = entry["error"]
            continue
        if not entry["classes"]:
            unbuildable[f"defaults/{model_type}"] = "no class of the family takes this config: " + "; ".join(
                f"{c} {why}" for c, why in sorted(entry["other"].items()))
        for name in entry["classes"]:
            jobs.append({"id": f"defaults/{model_type}/{name}", "model_type": model_type, "class": name,
                         "config": entry["config"]} | ({"overrides": overrides[model_type]}
                                                       if model_type in overrides else {}))
    reals = real_config_jobs(shared)
    ref_jobs = [{k: v for k, v in j.items() if k not in ("config",)} if "model_type" in j else
                {k: v for k, v in j.items() if k in ("id", "config", "class", "class_source", "config_source")}
                for j in jobs + reals]
    answers = ref.cases(ref_jobs, versions)
    if a.only:
        reals = [j for j in reals if answers[j["id"]].get("model_type") in a.only]
    jobs += reals

    # neurarch reads each config from a file, as a user gives it.
    configs = work / "configs"
    configs.mkdir(parents=True, exist_ok=True)

    # Written before the threads start: classes of one model type share a config file.
    for job in jobs:
        job["config_file"] = configs / f"{sha(canonical(job['config']))}.json"
        if not job["config_file"].exists():
            tmp = job["config_file"].with_suffix(".tmp")
            tmp.write_text(json.dumps(job["config"], indent=1))
            os.replace(tmp, job["config_file"])

    def run(job):
        if "error" in answers[job["id"]]:
            return job, None
        return job, neurarch_report(a.neurarch, job["config_file"], job["class"])

    observed: dict[str, list[str]] = {}
    ours_by_id: dict[str, dict] = {}
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        for job, ours in pool.map(run, jobs):
            answer = answers[job["id"]]
            if ours is None:
                unbuildable[job["id"]] = answer["error"]
                continue
            ours_by_id[job["id"]] = ours
            diff = differences(answer, ours)
            if diff:
                observed[job["id"]] = diff

    failures: list[str] = []
    known = {e["case"]: e for e in load_json(KNOWN)} if KNOWN.exists() else {}
    listed_unbuildable = load_json(NOT_BUILDABLE) if NOT_BUILDABLE.exists() else {}
    in_scope = {j["id"] for j in jobs} | set(unbuildable)

    def scoped(case: str) -> bool:
        if not a.only:
            return True
        return case in in_scope or any(case == f"defaults/{t}" for t in a.only)

    for case, diff in sorted(observed.items()):
        entry = known.get(case)
        listed = set(entry["differences"]) if entry else set()
        new = [d for d in diff if d not in listed]
        gone = sorted(listed - set(diff))
        if new:
            job = next(j for j in jobs if j["id"] == case)
            view = fixture_view(shared, case, answers[case], ours_by_id[case])
            failures.append(f"{case}: {len(new)} difference(s) not in {KNOWN.name} ({view}):\n    "
                            + "\n    ".join(new[:40]) + ("\n    ..." if len(new) > 40 else "")
                            + f"\n    config: {job.get('config_source', job['id'])}")
        if gone:
            failures.append(f"{case}: listed in {KNOWN.name} but no longer seen:\n    " + "\n    ".join(gone))
    for case, entry in sorted(known.items()):
        if case not in observed and scoped(case):
            failures.append(f"{case}: listed in {KNOWN.name} but neurarch now matches the reference exactly")
    for case, error in sorted(unbuildable.items()):
        if case not in listed_unbuildable:
            failures.append(f"{case}: the reference cannot build it, and {NOT_BUILDABLE.name} does not say so: {error}")
        elif listed_unbuildable[case] != error:
            failures.append(f"{case}: the reference's error changed:\n    listed: {listed_unbuildable[case]}\n"
                            f"    now:    {error}")
    for case in sorted(listed_unbuildable):
        if case not in unbuildable and scoped(case):
            failures.append(f"{case}: listed in {NOT_BUILDABLE.name} but the reference builds it now")

    unsupported = sorted(set(plan["registered"]) - set(supported))
    coverage_text = (f"# Model types transformers {plan['transformers_version']} registers (CONFIG_MAPPING) that "
                     f"neurarch does not support: {len(unsupported)} of {len(plan['registered'])}.\n"
                     f"# Generated by tests/reference/live_reference_test.py --write-coverage; the live reference "
                     f"test fails when it is stale.\n" + "".join(t + "\n" for t in unsupported))
    if a.write_coverage:
        COVERAGE.write_text(coverage_text)
    elif not a.only and (not COVERAGE.exists() or COVERAGE.read_text() != coverage_text):
        failures.append(f"{COVERAGE.name} is stale: rerun with --write-coverage "
                        f"({len(unsupported)} unsupported model types now)")

    if a.write_observed:
        out = []
        for case, diff in sorted(observed.items()):
            prior = known.get(case, {})
            out.append({"case": case, "differences": diff,
                        "fixture": fixture_view(shared, case, answers[case], ours_by_id[case]),
                        "reference": prior.get("reference", versions),
                        "why": prior.get("why", "TODO")})
        Path(a.write_observed).write_text(json.dumps({"differences": out, "not_buildable": unbuildable},
                                                     indent=1, sort_keys=True) + "\n")

    types_checked = len({j["model_type"] for j in jobs if "model_type" in j and j["id"] not in unbuildable})
    checked = [j["id"] for j in jobs if j["id"] not in unbuildable]
    exact = [c for c in checked if c not in observed]
    print(f"live reference ({versions}): {len(checked)} cases built and compared "
          f"({types_checked} model types' defaults, {len([c for c in checked if not c.startswith('defaults/')])} real "
          f"configs); exact {len(exact)}, different {len(observed)} (listed {len([c for c in observed if c in known])});"
          f" not buildable {len(unbuildable)}; unsupported model types {len(unsupported)}; "
          f"{time.monotonic() - started:.0f} s", flush=True)
    for f in failures:
        print("FAIL " + f, flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
