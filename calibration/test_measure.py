#!/usr/bin/env python3
"""Tests of calibration/measure.py that need no GPU.

    .venv-reference/bin/python -m unittest discover -s calibration -p 'test_*.py' -v

The suite runs them (ctest: calibration_measure) with the pinned reference of
tests/reference/requirements.txt (torch, transformers, peft), which scripts/test.sh installs into
.venv-reference/: the end-to-end CPU run of calibration/cases_tiny.json builds real transformers
models, trains them three steps, sweeps a card and measures live bytes with torch.profiler, and
every case of the GPU run lists is built on the meta device. Under another interpreter the parts
that need those libraries skip, saying so. The tiny torch module below is a test double for the
training loop, not a model that is ever measured.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import tempfile
import types
import unittest
import warnings
from contextlib import redirect_stderr
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import measure  # noqa: E402

try:
    import torch
except ImportError:  # pragma: no cover - depends on the machine
    torch = None

try:
    import transformers  # noqa: F401
    import peft  # noqa: F401
    HAVE_HF = True
except ImportError:
    HAVE_HF = False
    if os.environ.get("NEURARCH_REFERENCE_REQUIRED"):  # the suite (cmake/Calibration.cmake): never skip
        raise


class CaseLists(unittest.TestCase):
    def test_every_case_list_loads_with_unique_ids(self):
        lists = sorted(HERE.glob("cases_*.json"))
        self.assertGreaterEqual(len(lists), 4)
        for path in lists:
            cases = measure.load_cases(path)
            ids = [c.id for c in cases]
            self.assertEqual(len(ids), len(set(ids)), path)
            for c in cases:
                self.assertIn(c.mode, ("full", "lora"))
                self.assertTrue((c.seq_len is None) != (c.image_size is None), c.id)

    def test_runs_cover_both_modes_text_vision_and_sweeps(self):
        cases = [c for p in sorted(HERE.glob("cases_run*.json")) for c in measure.load_cases(p)]
        self.assertEqual({c.mode for c in cases}, {"full", "lora"})
        self.assertTrue(any(c.image_size for c in cases) and any(c.seq_len for c in cases))
        self.assertGreaterEqual(len({c.model_type for c in cases}), 15)
        cards = measure.load_cards()
        sweeps = [c for c in cases if c.sweep_cards]
        self.assertTrue(sweeps)
        for c in sweeps:
            for card in c.sweep_cards:
                self.assertIn(card, cards, c.id)

    def test_bad_case_lists_are_refused_with_the_case_named(self):
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "cases.json"
            bad = [
                ({"schema": "other", "cases": []}, "schema"),
                ({"schema": measure.CASES_SCHEMA, "cases": [{"config": "configs/gpt2.json", "class": "X",
                                                             "mode": "half", "seq_len": 8}]}, "mode"),
                ({"schema": measure.CASES_SCHEMA, "cases": [{"config": "configs/none.json", "class": "X",
                                                             "mode": "full", "seq_len": 8}]}, "not found"),
                ({"schema": measure.CASES_SCHEMA, "cases": [{"config": "configs/gpt2.json", "class": "X",
                                                             "mode": "full", "batch": 0, "seq_len": 8}]}, "batch"),
                ({"schema": measure.CASES_SCHEMA, "cases": [{"config": "configs/gpt2.json", "class": "X",
                                                             "mode": "full", "seq_len": 8, "image_size": 8}]}, "exactly one"),
            ]
            for doc, word in bad:
                path.write_text(json.dumps(doc))
                with self.assertRaises(measure.CaseError) as ctx:
                    measure.load_cases(path)
                self.assertIn(word, str(ctx.exception))
                self.assertIn(str(path), str(ctx.exception))

    def test_a_case_list_may_add_emulated_cards_but_not_redefine_real_ones(self):
        real = measure.load_cards()
        self.assertEqual(measure.load_case_cards(HERE / "cases_tiny.json", real), {"cpu-3MiB": 3 * 2**20})
        self.assertEqual(measure.load_case_cards(HERE / "cases_run1.json", real), {})
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "cases.json"
            for cards, word in (([{"name": "T4", "memory_bytes": 1}], "real card"),
                                ([{"name": "x", "memory_bytes": 0}], "memory_bytes"), ([{"memory_bytes": 5}], "name")):
                path.write_text(json.dumps({"schema": measure.CASES_SCHEMA, "cards": cards, "cases": []}))
                with self.assertRaises(measure.CaseError) as ctx:
                    measure.load_case_cards(path, real)
                self.assertIn(word, str(ctx.exception))
                self.assertIn(str(path), str(ctx.exception))

    def test_configs_match_their_manifest(self):
        import derive_configs
        if not (derive_configs.SHARED / "corpus").is_dir():
            self.skipTest("../shared is absent: cannot regenerate the configs")
        manifest = json.loads((HERE / "configs" / "manifest.json").read_text())
        for name, text in derive_configs.derived(manifest).items():
            self.assertEqual((HERE / "configs" / name).read_text(), text, name)


class MaxBatchSearch(unittest.TestCase):
    def probe(self, threshold):
        calls = []

        def fits(b):
            calls.append(b)
            return b <= threshold
        return fits, calls

    def test_finds_the_boundary(self):
        for threshold in (1, 2, 3, 7, 8, 9, 100, 127, 128):
            fits, calls = self.probe(threshold)
            self.assertEqual(measure.find_max_batch(fits, cap=128), threshold)
            self.assertLessEqual(len(calls), 2 * 8 + 1, calls)  # doubling plus bisection: logarithmic

    def test_nothing_fits_and_cap(self):
        fits, calls = self.probe(0)
        self.assertEqual(measure.find_max_batch(fits, cap=64), 0)
        self.assertEqual(calls, [1])
        fits, _ = self.probe(10_000)
        self.assertEqual(measure.find_max_batch(fits, cap=100), 100)

    def test_start_above_one(self):
        fits, calls = self.probe(20)
        self.assertEqual(measure.find_max_batch(fits, cap=64, start=4), 20)
        self.assertEqual(calls[0], 4)


class CsvOutput(unittest.TestCase):
    def test_validate_reads_columns_this_script_writes(self):
        source = (HERE.parent / "src" / "calibration" / "measured_row.cpp").read_text()
        block = source[source.index("required_columns()"):]
        block = block[block.index("{"):block.index("};")]
        required = re.findall(r'"([a-z0-9_]+)"', block)
        self.assertGreater(len(required), 20)
        for name in required:
            self.assertIn(name, measure.COLUMNS)
        self.assertEqual(len(measure.COLUMNS), len(set(measure.COLUMNS)))

    def test_quoting(self):
        row = {c: "" for c in measure.COLUMNS}
        row.update(case_id="a,b", error='said "no"\nthen', gpu_name="#1")
        line = measure.csv_line(row)
        self.assertIn('"a,b"', line)
        self.assertIn('"said ""no""\nthen"', line)
        self.assertIn('"#1"', line)
        self.assertTrue(line.endswith("\n"))

    def test_writer_appends_one_header(self):
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "sub" / "m.csv"
            for _ in range(2):
                w = measure.CsvWriter(path)
                w.write({"schema": measure.SCHEMA, "case_id": "x"})
                w.close()
            lines = path.read_text().splitlines()
            self.assertEqual(lines[0], ",".join(measure.COLUMNS))
            self.assertEqual(len(lines), 3)
            self.assertEqual(sum(1 for ln in lines if ln.startswith("schema,")), 1)

    def test_dry_run_never_writes_under_measured(self):
        err = io.StringIO()
        with redirect_stderr(err):
            code = measure.main([str(HERE / "cases_tiny.json"), "--dry-run"])
        self.assertEqual(code, 2)
        self.assertIn("not a GPU measurement", err.getvalue())
        with redirect_stderr(io.StringIO()):
            code = measure.main([str(HERE / "cases_tiny.json"), "--device", "cpu", "--out",
                                 str(HERE / "measured" / "x.csv")])
        self.assertEqual(code, 2)
        self.assertFalse((HERE / "measured" / "x.csv").exists())


class ScriptedProbe:
    """Replays (allocated, reserved) per phase, as the CUDA allocator would report them."""

    def __init__(self, peaks):
        self.script = list(peaks)
        self.phases = []

    def start_phase(self, phase):
        self.phases.append(phase)

    def end_phase(self):
        pass

    def peaks(self):
        return self.script


@unittest.skipIf(torch is None, "PyTorch is not installed (Debian: apt-get install python3-torch)")
class TrainingLoop(unittest.TestCase):
    class TinyLM(torch.nn.Module if torch else object):
        """Test double: an embedding and a linear head returning an output with .loss."""

        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(32, 8)
            self.head = torch.nn.Linear(8, 32)

        def get_output_embeddings(self):
            return self.head

        def forward(self, input_ids, labels=None):
            logits = self.head(self.embed(input_ids))
            loss = torch.nn.functional.cross_entropy(logits.float().view(-1, 32), labels.view(-1))
            return types.SimpleNamespace(loss=loss, logits=logits)

    def run_loop(self, probe):
        torch.manual_seed(0)
        model = self.TinyLM()
        before = model.head.weight.detach().clone()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
        ids = torch.randint(0, 32, (2, 5))
        m = measure.train_steps(model, {"input_ids": ids, "labels": ids}, opt,
                                lambda: torch.autocast("cpu", dtype=torch.bfloat16), probe)
        return model, before, m

    def test_three_steps_train_and_free_gradients(self):
        probe = ScriptedProbe([(1, 0)] * 9)
        model, before, m = self.run_loop(probe)
        self.assertEqual(m.steps, 3)
        self.assertEqual(probe.phases, list(measure.PHASES) * 3)
        self.assertFalse(torch.equal(before, model.head.weight))
        self.assertTrue(all(p.grad is None for p in model.parameters()))  # zero_grad(set_to_none=True)
        self.assertEqual(set(m.phase_peaks), set(measure.PHASES))

    def test_cpu_probe_counts_live_bytes_known_by_hand(self):
        probe = measure.CpuMemoryProbe(torch)
        probe.begin()
        a = torch.empty(1000, dtype=torch.float32)   # 4000 bytes live
        probe.start_phase("forward_end")
        b = torch.empty(500, dtype=torch.float64)    # 4000 -> 8000
        del a                                        # 4000
        c = torch.empty(250, dtype=torch.int32)      # 1000 -> 5000
        probe.end_phase()
        probe.start_phase("backward")
        del b                                        # 1000
        probe.end_phase()
        probe.start_phase("optimizer_step")
        d = torch.empty(3000, dtype=torch.uint8)     # 4000
        e = torch.empty(10, dtype=torch.bfloat16)    # 4020
        del c, d, e                                  # 0
        probe.end_phase()
        self.assertEqual(probe.peaks(), [(8000, 0), (5000, 0), (4020, 0)])
        probe.end()  # idempotent

    def test_cpu_probe_measures_a_real_step(self):
        torch.manual_seed(0)
        probe = measure.CpuMemoryProbe(torch)
        probe.begin()
        model = self.TinyLM()                      # 32*8 + 8*32 + 32 floats
        weights = (32 * 8 + 8 * 32 + 32) * 4
        opt = torch.optim.AdamW(model.parameters(), lr=1e-2, foreach=False)
        ids = torch.randint(0, 32, (2, 5))
        m = measure.train_steps(model, {"input_ids": ids, "labels": ids}, opt, contextlib.nullcontext, probe)
        # After a step: weights and the two AdamW moments live (gradients freed); the backward
        # phase holds weights and gradients at least.
        self.assertGreaterEqual(m.phase_peaks["optimizer_step"], 3 * weights)
        self.assertGreaterEqual(m.phase_peaks["backward"], 2 * weights)
        self.assertIn(m.peak_phase, measure.PHASES)
        self.assertEqual(m.max_allocated, max(m.phase_peaks.values()))

    def test_running_peaks_count_what_is_live_when_a_range_opens(self):
        events = [(1, 100), (3, 50), (4, -120), (6, 10), (9, -40)]
        self.assertEqual(measure.running_peaks(events, [(2, 5), (5, 7), (8, 10), (11, 12)]), [150, 40, 40, 0])

    def test_peak_is_the_largest_phase_of_any_step(self):
        script = [(10, 20), (30, 40), (25, 40),   # step 1: optimizer state appears in the step
                  (35, 44), (50, 60), (45, 60),   # step 2: steady state, backward is the peak
                  (35, 44), (49, 64), (45, 60)]   # step 3: reserved grows by fragmentation only
        _, _, m = self.run_loop(ScriptedProbe(script))
        self.assertEqual(m.max_allocated, 50)
        self.assertEqual(m.max_reserved, 64)
        self.assertEqual(m.peak_phase, "backward")
        self.assertEqual(m.phase_peaks, {"forward_end": 35, "backward": 49, "optimizer_step": 45})

    def test_loss_of_a_base_model_is_a_mean_of_its_outputs(self):
        out = {"last_hidden_state": torch.ones(2, 3, 4, requires_grad=True), "pooler_output": torch.ones(2, 4) * 2,
               "ids": torch.zeros(2, dtype=torch.long)}
        self.assertAlmostEqual(float(measure.loss_of(out)), 3.0)
        given = types.SimpleNamespace(loss=torch.tensor(7.0))
        self.assertEqual(float(measure.loss_of(given)), 7.0)

    def test_lora_leaves_the_output_layer_and_saves_a_classifier(self):
        model = self.TinyLM()
        excluded, to_save = measure.head_module_names(model, "TinyForCausalLM")
        self.assertEqual(excluded, {"head"})
        self.assertEqual(to_save, [])

        class Classifier(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.body = torch.nn.Linear(4, 4)
                self.classifier = torch.nn.Linear(4, 2)
        excluded, to_save = measure.head_module_names(Classifier(), "TinyForSequenceClassification")
        self.assertEqual(excluded, {"classifier"})
        self.assertEqual(to_save, ["classifier"])
        self.assertEqual(measure.lora_targets(Classifier(), "TinyForSequenceClassification"), (["body"], ["classifier"]))

    def test_inputs_follow_the_class(self):
        cfg = types.SimpleNamespace(vocab_size=50, num_labels=3, num_channels=3)
        text = measure.Case("t", "c", "gpt2", "GPT2LMHeadModel", "full", 2, seq_len=7)
        x = measure.make_inputs(text, cfg, 2, "cpu", torch.float32)
        self.assertEqual(tuple(x["input_ids"].shape), (2, 7))
        self.assertTrue(torch.equal(x["labels"], x["input_ids"]))
        self.assertLess(int(x["input_ids"].max()), 50)
        vision = measure.Case("v", "c", "vit", "ViTForImageClassification", "lora", 4, image_size=16)
        x = measure.make_inputs(vision, cfg, 4, "cpu", torch.bfloat16)
        self.assertEqual(tuple(x["pixel_values"].shape), (4, 3, 16, 16))
        self.assertEqual(x["pixel_values"].dtype, torch.bfloat16)
        self.assertEqual(tuple(x["labels"].shape), (4,))
        base = measure.Case("b", "c", "dinov2", "Dinov2Model", "full", 1, image_size=14)
        self.assertNotIn("labels", measure.make_inputs(base, cfg, 1, "cpu", torch.float32))


@unittest.skipIf(torch is None, "PyTorch is not installed (Debian: apt-get install python3-torch)")
class SweepRows(unittest.TestCase):
    """run_case over a stand-in for one real run (Runner.run replaced): which rows a sweep emits."""

    def runner(self, threshold, status_over="oom"):
        r = measure.Runner("cpu", dry_run=True, run_id="t", baseline=None)

        def run(case, batch, card="", card_bytes=None):
            return {"case_id": f"{case.id}@{card}/b{batch}", "status": "ok" if batch <= threshold else status_over,
                    "error": "", "card_bytes": card_bytes}
        r.run = run
        return r

    def case(self, cards, max_batch=64):
        return measure.Case("c", "configs/tiny-gpt2.json", "gpt2", "GPT2LMHeadModel", "full", 1, seq_len=8,
                            sweep_cards=cards, sweep_max_batch=max_batch)

    def test_one_row_per_probe_on_each_card(self):
        rows = []
        self.runner(threshold=5).run_case(self.case(["T4", "L4"]), {"T4": 1, "L4": 2}, rows.append)
        t4 = [r for r in rows if "@T4/" in r["case_id"]]
        self.assertEqual([r["case_id"] for r in t4], ["c@T4/b1", "c@T4/b2", "c@T4/b4", "c@T4/b8", "c@T4/b6", "c@T4/b5"])
        self.assertEqual(len(rows), 2 * len(t4))
        self.assertEqual({r["card_bytes"] for r in rows}, {1, 2})

    def test_a_failed_run_stops_that_sweep_and_the_budget_stops_all(self):
        rows = []
        with redirect_stderr(io.StringIO()):
            self.runner(threshold=2, status_over="error").run_case(self.case(["T4", "L4"]), {"T4": 1, "L4": 2},
                                                                   rows.append)
        self.assertEqual([r["case_id"] for r in rows], ["c@T4/b1", "c@T4/b2", "c@T4/b4",
                                                         "c@L4/b1", "c@L4/b2", "c@L4/b4"])
        r = self.runner(threshold=100)
        r.deadline = 0
        rows = []
        with redirect_stderr(io.StringIO()):
            r.run_case(self.case(["T4"]), {"T4": 1}, rows.append)
        self.assertEqual(rows, [])

    def test_unknown_card_is_a_case_error(self):
        with self.assertRaises(measure.CaseError):
            self.runner(threshold=1).run_case(self.case(["NoSuchCard"]), {"T4": 1}, lambda row: None)


@unittest.skipUnless(torch is not None and HAVE_HF,
                     "transformers and peft are not importable: run with .venv-reference/bin/python (scripts/test.sh "
                     "installs tests/reference/requirements.txt there); the end-to-end CPU run cannot run here")
class CpuRunEndToEnd(unittest.TestCase):
    def test_tiny_cases_run_on_cpu(self):
        """cases_tiny.json end to end on the CPU, as main() runs a GPU list: real models, both modes,
        the card sweep against an emulated cap."""
        import csv
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "cpu.csv"
            err = io.StringIO()
            with redirect_stderr(err):
                code = measure.main([str(HERE / "cases_tiny.json"), "--device", "cpu", "--out", str(out)])
            self.assertEqual(code, 0, err.getvalue())
            rows = list(csv.DictReader(out.open()))
        cases = measure.load_cases(HERE / "cases_tiny.json")
        plain = [r for r in rows if not r["card"]]
        self.assertEqual([r["case_id"] for r in plain], [c.id for c in cases if not c.sweep_cards])
        self.assertEqual({r["mode"] for r in plain}, {"full", "lora"})
        for r in rows:
            self.assertEqual((r["device"], r["dry_run"]), ("cpu", "1"))
            self.assertEqual(r["transformers_version"], transformers.__version__)
            self.assertIn(r["attention"], ("sdpa", "eager"))
            self.assertGreater(int(r["trainable_parameters"]), 0)
            if r["mode"] == "lora":
                self.assertLess(int(r["trainable_parameters"]), int(r["parameters"]))
            self.assertIn(r["status"], ("ok", "oom"), r["error"])
            self.assertEqual(r["steps"], "3")
            # Live bytes: at least the fp32 trainable weights with their gradient and two AdamW moments.
            peaks = [int(r[k]) for k in ("forward_peak_bytes", "backward_peak_bytes", "optimizer_peak_bytes")]
            self.assertEqual(int(r["max_allocated_bytes"]), max(peaks))
            self.assertGreater(int(r["max_allocated_bytes"]), 3 * 4 * int(r["trainable_parameters"]))
            self.assertIn(r["peak_phase"], measure.PHASES)
            self.assertEqual(r["max_reserved_bytes"], "")  # no caching allocator on the CPU
        for r in plain:
            self.assertEqual(r["status"], "ok", r["error"])

        # The sweep: doubling then bisection, each probe a real run judged against the 3 MiB cap.
        sweep = [r for r in rows if r["card"]]
        self.assertTrue(sweep)
        cap = 3 * 2**20
        for r in sweep:
            self.assertEqual(r["card"], "cpu-3MiB")
            self.assertEqual(r["status"], "ok" if int(r["max_allocated_bytes"]) <= cap else "oom", r["case_id"])
        batches = [int(r["batch"]) for r in sweep]
        fits = [int(r["batch"]) for r in sweep if r["status"] == "ok"]
        self.assertEqual(batches[:2], [1, 2])
        self.assertTrue(fits and any(r["status"] == "oom" for r in sweep))
        self.assertTrue(all(b < min(int(r["batch"]) for r in sweep if r["status"] == "oom") for b in fits))
        by_batch = sorted((int(r["batch"]), int(r["max_allocated_bytes"])) for r in sweep)
        self.assertEqual(by_batch, sorted(by_batch, key=lambda x: x[1]))  # more batch, more memory


@unittest.skipUnless(torch is not None and HAVE_HF, "transformers and peft are not importable (see CpuRunEndToEnd)")
class GpuRunListsBuild(unittest.TestCase):
    """Every model of the GPU run lists builds with the pinned transformers on the meta device (no
    memory), through the same build_model call a GPU run makes, and LoRA finds its targets: what a
    first GPU session would otherwise discover at its own cost. (peft's injection itself is run on
    the tiny cases above; on these sizes it allocates the adapters for real, too slow for the suite.)"""

    def test_every_run_case_builds_on_meta(self):
        seen = set()
        for path in sorted(HERE.glob("cases_run*.json")):
            for case in measure.load_cases(path):
                if (case.config, case.class_name, case.mode) in seen:
                    continue
                seen.add((case.config, case.class_name, case.mode))
                with self.subTest(case=case.id), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    dtype = torch.float32 if case.mode == "full" else torch.bfloat16
                    model, attention = measure.build_model(case, "meta", dtype)
                    self.assertIn(attention, ("sdpa", "eager"))
                    self.assertTrue(all(p.dtype == dtype for p in model.parameters()))
                    config = json.loads((HERE / case.config).read_text())
                    vocab = config.get("vocab_size")
                    if vocab and case.seq_len:
                        self.assertEqual(model.get_input_embeddings().num_embeddings, vocab)
                    if case.mode == "lora":
                        targets, _ = measure.lora_targets(model, case.class_name)
                        self.assertGreater(len(targets), 0)
        self.assertGreaterEqual(len(seen), 40)


if __name__ == "__main__":
    unittest.main()
