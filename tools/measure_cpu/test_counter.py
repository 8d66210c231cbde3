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


def planner_or_skip(test: unittest.TestCase) -> str:
    """The neurarch-trace binary ctest names, with transformers and peft importable; else the test is skipped."""
    binary = os.environ.get("NEURARCH_TRACE_BIN")
    if not binary:
        test.skipTest("NEURARCH_TRACE_BIN not set (ctest sets it)")
    try:
        import peft  # noqa: F401
        import transformers  # noqa: F401
    except ImportError as e:
        test.skipTest(f"{e}")
    return binary


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

    def test_release_of_a_tensor_made_before_profiling(self):
        # The profiler drops the free of a block allocated before it started; a held loop's previous outputs are
        # such a block, and the step marks their release.
        held = {"outputs": torch.empty(3000)}  # 12,000 B, live before the step
        c = StepCounter()
        with c.profiling():
            with c.phase("a"):
                new = torch.empty(1000)            # +4,000
                c.released(held.clear)             # -12,000, unseen by the profiler
            with c.phase("b"):
                more = torch.empty(500)            # +2,000
        r = c.result()
        self.assertEqual(r.peaks["a"] - r.baseline, 4000)
        self.assertEqual(r.peaks["b"] - r.baseline, 4000 - 12000 + 2000)
        self.assertEqual(r.end, live_tensor_bytes())
        del new, more

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
        binary = planner_or_skip(self)
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


class IdleWeights(unittest.TestCase):
    """Weights a model stores but never runs (BartForCausalLM's encoder_attn, LUKE's entity stream, ESM's contact head,
    MarkupLM's xpath_unitseq2_embeddings) keep .grad None after a real backward: the planner's trainable count is
    every requires_grad parameter, and its gradients those that got one, byte for byte (each rounded to the
    allocator's 512-byte blocks, as the plan rounds them)."""

    CASES = [
        {"model_type": "bart", "d_model": 64, "decoder_layers": 2, "encoder_layers": 2, "decoder_attention_heads": 4,
         "encoder_attention_heads": 4, "decoder_ffn_dim": 128, "encoder_ffn_dim": 128, "vocab_size": 100,
         "max_position_embeddings": 64, "architectures": ["BartForCausalLM"]},
        {"model_type": "luke", "vocab_size": 100, "entity_vocab_size": 50, "entity_emb_size": 32, "hidden_size": 64,
         "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "max_position_embeddings": 64,
         "architectures": ["LukeModel"]},
        {"model_type": "esm", "vocab_size": 33, "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
         "intermediate_size": 128, "max_position_embeddings": 64, "pad_token_id": 1, "mask_token_id": 32,
         "position_embedding_type": "rotary", "architectures": ["EsmForMaskedLM"]},
        {"model_type": "markuplm", "vocab_size": 100, "hidden_size": 64, "num_hidden_layers": 2,
         "num_attention_heads": 4, "intermediate_size": 128, "max_position_embeddings": 64, "max_depth": 8,
         "xpath_unit_hidden_size": 8, "architectures": ["MarkupLMModel"]},
    ]

    def test_stored_weights_get_no_gradient(self):
        binary = planner_or_skip(self)
        import transformers
        seq = 16
        for cfg in self.CASES:
            with self.subTest(cfg["architectures"][0]):
                torch.manual_seed(0)
                config = transformers.AutoConfig.for_model(**{k: v for k, v in cfg.items() if k != "model_type"}
                                                           | {"model_type": cfg["model_type"]})
                model = getattr(transformers, cfg["architectures"][0])(config)
                ids = torch.randint(2, 30, (2, seq))
                out = model(input_ids=ids)
                # Every floating output the model returns, so that backward reaches all that ran.
                loss = sum(v.float().sum() for v in out.values() if torch.is_tensor(v) and v.requires_grad)
                loss.backward()
                params = dict(model.named_parameters())
                trainable = sum(p.numel() for p in params.values() if p.requires_grad)
                blocks = lambda n: (n * 4 + 511) // 512 * 512  # noqa: E731
                grads = sum(blocks(p.numel()) for p in params.values() if p.grad is not None)
                self.assertLess(grads, sum(blocks(p.numel()) for p in params.values()))  # some are idle
                with tempfile.TemporaryDirectory() as tmp:
                    path = Path(tmp) / "config.json"
                    path.write_text(json.dumps(cfg))
                    run = subprocess.run([binary, str(path), "--plan", "--format", "json", "--precision", "fp32",
                                          "--seq", str(seq)], capture_output=True, text=True, timeout=120)
                self.assertEqual(run.returncode, 0, run.stderr)
                full = json.loads(run.stdout)["plan"]["full"]
                step = next(p for p in full["phases"] if p["phase"] == "optimizer_step")
                self.assertEqual(full["trainable_parameters"], trainable)
                self.assertEqual(step["terms"]["gradients"], grads)


if __name__ == "__main__":
    unittest.main()
