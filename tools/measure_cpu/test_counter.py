#!/usr/bin/env python3
"""The counter on steps whose live bytes are known by hand, then one tiny real step end to end.

    .venv-reference/bin/python -m unittest discover -s tools/measure_cpu -p 'test_*.py' -v

Needs torch (and transformers + peft for the end-to-end case); exits 77 (ctest: skipped) without
them, saying so.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

try:
    import torch
    from counter import StepCounter, live_tensor_bytes
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"skipped: {e} (install tests/reference/requirements.txt)")
    sys.exit(77)


class HandCounted(unittest.TestCase):
    def test_plain_allocations(self):
        keep = torch.ones(1000)  # 4000 bytes, live before the step
        c = StepCounter()
        with c.profiling():
            with c.phase("a"):
                a = torch.empty(2500)                     # +10000
                b = torch.empty(250, dtype=torch.float64)  # +2000
                del a                                     # -10000
            with c.phase("b"):
                d = torch.empty(100, dtype=torch.bfloat16)  # +200
                del b                                       # -2000
        r = c.result()
        self.assertEqual(r.peaks["a"] - r.baseline, 12000)
        self.assertEqual(r.peaks["b"] - r.baseline, 2200)  # b still live when d arrives
        self.assertEqual(r.end - r.baseline, 200)
        del d, keep

    def test_linear_step(self):
        torch.manual_seed(0)
        lin = torch.nn.Linear(1000, 500)       # weight 2,000,000 B, bias 2,000 B
        x = torch.randn(8, 1000)               # 32,000 B
        opt = torch.optim.SGD(lin.parameters(), lr=0.1)  # no state
        c = StepCounter()
        with c.profiling():
            with c.phase("forward"):
                loss = lin(x).sum()            # output 16,000 B (freed by sum), loss 4 B
            with c.phase("backward"):
                loss.backward()                # grads 2,002,000 B stay
                del loss
            with c.phase("optimizer"):
                opt.step()                     # in place, nothing new
        r = c.result()
        self.assertGreaterEqual(r.baseline, 2_002_000 + 32_000)
        self.assertEqual(r.peaks["forward"] - r.baseline, 16_000 + 4)
        # Backward holds the loss, its seed gradient (4 B each) and both parameter gradients at least.
        self.assertGreaterEqual(r.peaks["backward"] - r.baseline, 2_002_000 + 8)
        self.assertEqual(r.peaks["optimizer"] - r.baseline, 2_002_000)
        self.assertEqual(r.end - r.baseline, 2_002_000)
        self.assertEqual(r.end, live_tensor_bytes())  # nothing escaped the profiler


class EndToEnd(unittest.TestCase):
    def test_tiny_gpt2_row(self):
        try:
            import peft  # noqa: F401
            import transformers  # noqa: F401
        except ImportError as e:
            self.skipTest(f"{e}")
        import measure_cpu
        cfg = {"model_type": "gpt2", "n_layer": 4, "n_embd": 64, "n_head": 4, "vocab_size": 500, "n_positions": 64,
               "bos_token_id": 0, "eos_token_id": 0, "architectures": ["GPT2LMHeadModel"]}
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "tiny.json"
            src.write_text(json.dumps(cfg))
            out = Path(tmp) / "rows.jsonl"
            rc = measure_cpu.main(["--config", str(src), "--layers", "2", "--seq", "16", "--batch", "2",
                                   "--configs-out", str(Path(tmp) / "configs"), "--config-root", tmp,
                                   "--source-label", "tiny.json", "--out", str(out)])
            self.assertEqual(rc, 0)
            row = json.loads(out.read_text().splitlines()[0])
        self.assertEqual(row["config"], "configs/tiny-2l.json")
        params = row["trainable_parameters"]
        # Before the step: fp32 weights and AdamW's two moments (plus inputs and step counters).
        self.assertGreaterEqual(row["baseline_bytes"], 12 * params)
        self.assertLess(row["baseline_bytes"], 12 * params + 4096)
        self.assertEqual(row["end_bytes_counted"], row["end_bytes_walked"])
        self.assertEqual(row["end_bytes_counted"], row["baseline_bytes"])  # set_to_none: grads gone
        # Every gradient exists at once when the optimizer runs.
        self.assertGreaterEqual(row["optimizer_peak_bytes"], 16 * params)
        self.assertEqual(row["overall_peak_bytes"],
                         max(row["forward_peak_bytes"], row["backward_peak_bytes"], row["optimizer_peak_bytes"]))

    def test_live_rows_against_the_planner(self):
        """Re-measures two tiny steps (fp32 and bf16 autocast, tied head) and plans them: every phase
        within 10 % and none under by more than 10 %."""
        binary = os.environ.get("NEURARCH_TRACE_BIN")
        if not binary:
            self.skipTest("NEURARCH_TRACE_BIN not set (ctest sets it)")
        try:
            import peft  # noqa: F401
            import transformers  # noqa: F401
        except ImportError as e:
            self.skipTest(f"{e}")
        import measure_cpu
        cfg = {"model_type": "gpt2", "n_layer": 2, "n_embd": 128, "n_head": 4, "vocab_size": 2000,
               "n_positions": 128, "bos_token_id": 0, "eos_token_id": 0, "architectures": ["GPT2LMHeadModel"]}
        with tempfile.TemporaryDirectory() as tmp:
            src = Path(tmp) / "tiny.json"
            src.write_text(json.dumps(cfg))
            out = Path(tmp) / "rows.jsonl"
            for precision in ("fp32", "amp-bf16"):
                rc = measure_cpu.main(["--config", str(src), "--layers", "2", "--seq", "64", "--batch", "2",
                                       "--precision", precision, "--configs-out", str(Path(tmp) / "configs"),
                                       "--config-root", tmp, "--source-label", "tiny.json", "--out", str(out)])
                self.assertEqual(rc, 0)
            run = subprocess.run([binary, "validate", tmp], capture_output=True, text=True, timeout=120)
        last = run.stdout.strip().splitlines()[-1]
        m = re.fullmatch(r"cpu: rows 2, planned 2, inexpressible 0, median ([0-9.]+)%, p90 ([0-9.]+)%, under10 (\d+)",
                         last)
        self.assertIsNotNone(m, run.stdout + run.stderr)
        self.assertLessEqual(float(m.group(2)), 10.0, run.stdout)
        self.assertEqual(int(m.group(3)), 0, run.stdout)


if __name__ == "__main__":
    unittest.main()
