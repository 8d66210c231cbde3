#!/usr/bin/env python3
"""Tests of calibration/measure.py that need no GPU.

    /usr/bin/python3 -m unittest discover -s calibration -p 'test_*.py' -v

Parts that need PyTorch skip without it (Debian: python3-torch); the end-to-end dry run of real
transformers models skips without transformers and peft (Debian has neither), saying so. The tiny
torch module below is a test double for the training loop, not a model that is ever measured.
"""
from __future__ import annotations

import io
import json
import re
import sys
import tempfile
import types
import unittest
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
        self.assertIn("not a measurement", err.getvalue())
        with redirect_stderr(io.StringIO()):
            code = measure.main([str(HERE / "cases_tiny.json"), "--dry-run", "--out",
                                 str(HERE / "measured" / "x.csv")])
        self.assertEqual(code, 2)
        self.assertFalse((HERE / "measured" / "x.csv").exists())


class ScriptedProbe:
    """Replays (allocated, reserved) per phase, as the CUDA allocator would report them."""

    def __init__(self, peaks):
        self.peaks = list(peaks)
        self.cuda = True

    def start_phase(self):
        pass

    def end_phase(self):
        return self.peaks.pop(0)


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
        model, before, m = self.run_loop(measure.MemoryProbe(torch, cuda=False))
        self.assertEqual(m.steps, 3)
        self.assertFalse(torch.equal(before, model.head.weight))
        self.assertTrue(all(p.grad is None for p in model.parameters()))  # zero_grad(set_to_none=True)
        self.assertEqual(m.peak_phase, "")  # CPU: no allocator figures, no phase claimed
        self.assertEqual(set(m.phase_peaks), set(measure.PHASES))

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
                     "transformers and peft are not installed (Debian has no python3-transformers or python3-peft): "
                     "the end-to-end dry run of real models cannot run here")
class DryRunEndToEnd(unittest.TestCase):
    def test_tiny_cases_run_on_cpu(self):
        with tempfile.TemporaryDirectory() as d:
            out = Path(d) / "dry.csv"
            with redirect_stderr(io.StringIO()):
                code = measure.main([str(HERE / "cases_tiny.json"), "--dry-run", "--out", str(out)])
            self.assertEqual(code, 0)
            import csv
            rows = list(csv.DictReader(out.open()))
            self.assertEqual(len(rows), len(measure.load_cases(HERE / "cases_tiny.json")))
            for r in rows:
                self.assertEqual(r["status"], "ok", r["error"])
                self.assertEqual(r["steps"], "3")
                self.assertEqual(r["dry_run"], "1")
                self.assertGreater(int(r["trainable_parameters"]), 0)
                if r["mode"] == "lora":
                    self.assertLess(int(r["trainable_parameters"]), int(r["parameters"]))


if __name__ == "__main__":
    unittest.main()
