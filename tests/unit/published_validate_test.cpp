// The planner against peaks other people measured and published (../shared/measurements/published):
// the same evaluation `neurarch-trace validate rows.json` prints, held to the issue's targets.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>

#include "calibration/published.hpp"
#include "core/error.hpp"
#include "plan/hardware.hpp"
#include "support/shared_data.hpp"

using namespace neurarch;
namespace fs = std::filesystem;

namespace {
const fs::path kPublished = fs::path(NEURARCH_SOURCE_DIR) / ".." / "shared" / "measurements" / "published";
}

TEST(PublishedPeaks, EveryRowIsExpressibleAndWithinTheTargets) {
  NEURARCH_REQUIRE(fs::is_regular_file(kPublished / "rows.json"), "../shared/measurements/published not found");
  const auto rows = calibration::read_published(kPublished / "rows.json");
  const auto ev = calibration::evaluate_published(
      rows, {kPublished / "configs", kPublished / ".." / ".." / "corpus" / "configs"}, plan::default_runtime());
  std::cout << calibration::render_published_text(ev);
  for (const auto& r : ev.results) EXPECT_TRUE(r.missing.empty()) << r.row->id << ": " << r.missing.front();
  EXPECT_EQ(ev.overall.inexpressible, 0u);
  EXPECT_EQ(ev.overall.oom_called_fit, 0u);
  // The issue's targets are median <= 5 %, p90 <= 12 %, under10 0; these bounds hold today's figures so that a
  // change can only improve them. They
  // were 7.8 % / 18.9 % / 9 until the CPU measurements (docs/cpu-memory.md) showed the logits' gradient
  // counted twice in backward (once with the loss, once as the widest activation gradient in flight):
  // without that double count the forward+backward rows of the SDPA benchmark come out under, which is
  // a shortfall to find op by op, not one to hide with a second copy of the logits. under10 went from 2 to
  // 1 when Lightning's bitsandbytes path was read (fp16-quantized weights cast to bf16 at every matmul,
  // bnb.nf4's fp32 block constants, no 16-bit load phase), and to 0 (p90 9.8 % -> 6.1 %) when the V100
  // rows' torch (<= 1.10) was seen to keep each softmax's input for backward as well as its result. p90 then
  // rose from 6.1 % to 7.1 % when litgpt's fused qkv linear (one LoRA dropout for q, k and v) was stated: its
  // LoRA rows came closer (TinyLlama +17.2 % -> +9.0 %), its QLoRA rows went under by 2-7 %, a QLoRA-only
  // shortfall that the triple dropout had been hiding (docs/memory-plan.md). The median rose from 2.5 % to 2.6 %
  // when BERT's embedding dropout got its mask (the LayerNorm op had dropped the node's declared dropout; the CPU
  // shows the saved noise): the BERT rows, already over, went 0.1 % further; and to 2.7 % when each op's transients
  // were declared (an MLP's intermediate gradients, eager attention's score temporaries: DINOv2's CPU backward at
  // 1,025 tokens went from -16 % to +3 %), which moved the V100 BERT rows 0.1-0.4 % further over.
  ASSERT_TRUE(ev.overall.errors);
  EXPECT_EQ(ev.overall.under10, 0u) << ev.last_line();
  EXPECT_LE(ev.overall.errors->median_abs_percent, 2.75) << ev.last_line();
  EXPECT_LE(ev.overall.errors->p90_abs_percent, 7.2) << ev.last_line();
}

TEST(PublishedPeaks, ARowTheVocabularyCannotStateIsListedNotSkipped) {
  calibration::PublishedRow row;
  row.id = "made-up";
  row.mode = "full";
  row.precision = "fp8-e4m3";
  row.optimizer = "lion";
  row.metric = "max_memory_allocated";
  row.framework = "deepspeed";
  const auto s = calibration::row_setup(row, "LlamaForCausalLM");
  ASSERT_EQ(s.missing.size(), 3u);
  EXPECT_NE(s.missing[0].find("deepspeed"), std::string::npos);
  EXPECT_NE(s.missing[1].find("fp8"), std::string::npos);
  EXPECT_NE(s.missing[2].find("lion"), std::string::npos);
}

TEST(PublishedPeaks, OtherFrameworksSpellingsOfTheSameSetupAreRead) {
  calibration::PublishedRow row;
  row.id = "spelled-otherwise";
  row.mode = "full";
  row.precision = "bf16-mixed";                 // Lightning's name for bf16 autocast
  row.optimizer = "adamw_torch_fused (TrainingArguments optim)";
  row.metric = "torch.cuda.max_memory_allocated()";
  row.attention = "flash_attention_2";
  row.framework = "TRL SFTTrainer";
  row.versions = "transformers 4.46, torch 2.5.1";
  auto s = calibration::row_setup(row, "LlamaForCausalLM");
  ASSERT_TRUE(s.missing.empty()) << s.missing.front();
  EXPECT_EQ(*s.choices.get("precision"), "amp-bf16");
  EXPECT_EQ(*s.choices.get("optimizer"), "adamw-fused");
  EXPECT_EQ(*s.choices.get("attention"), "sdpa");
  EXPECT_EQ(*s.choices.get("framework"), "hf-trainer@4.46");
  EXPECT_EQ(*s.choices.get("era"), "torch2-cuda12");
  EXPECT_EQ(s.metric, "allocated");

  row.precision = "bf16-true";
  row.optimizer = "paged_adamw_8bit";
  row.attention = "sdpa (math backend)";
  row.metric = "max_memory_reserved";
  row.framework = "Accelerate (custom loop)";
  row.versions = "torch 1.10.1, CUDA 11.3";
  s = calibration::row_setup(row, "LlamaForCausalLM");
  ASSERT_TRUE(s.missing.empty()) << s.missing.front();
  EXPECT_EQ(*s.choices.get("precision"), "bf16");
  EXPECT_EQ(*s.choices.get("optimizer"), "paged-adamw-8bit");
  EXPECT_EQ(*s.choices.get("attention"), "eager");  // SDPA's math backend keeps the probabilities
  EXPECT_EQ(s.choices.get("framework"), nullptr);  // a script's own loop: nothing beyond the row
  EXPECT_EQ(*s.choices.get("era"), "torch1.10-cuda11");  // softmax still kept its input

  // No torch stated: a versioned preset brings its own era; an old CUDA alone says torch 1.x.
  row.framework = "HF Trainer";
  row.versions = "not stated; nvidia-smi banner: CUDA 11.2 (transformers ~4.15/4.16 era)";
  s = calibration::row_setup(row, "LlamaForCausalLM");
  EXPECT_EQ(*s.choices.get("framework"), "hf-trainer@4.15");
  EXPECT_EQ(s.choices.get("era"), nullptr);
  row.framework = "Accelerate (custom loop)";
  s = calibration::row_setup(row, "LlamaForCausalLM");
  EXPECT_EQ(*s.choices.get("era"), "torch1-cuda11");
  EXPECT_EQ(s.metric, "reserved");
}

TEST(PublishedPeaks, MetricsPrecisionsOptimizersAndLoopsInOtherWords) {
  calibration::PublishedRow row;
  row.id = "in-words";
  row.mode = "full";
  row.precision = "bf16-amp";
  row.optimizer = "adamw-torch";
  row.framework = "torchtune";
  auto metric = [&](const std::string& m) {
    row.metric = m;
    return calibration::row_setup(row, "LlamaForCausalLM").metric;
  };
  // torchtune logs torch.cuda.memory_stats() as peak_memory_alloc / _active / _reserved.
  EXPECT_EQ(metric("peak_memory_alloc"), "allocated");
  EXPECT_EQ(metric("peak_memory_active"), "allocated");
  EXPECT_EQ(metric("peak_memory_reserved"), "reserved");
  EXPECT_EQ(metric("memory.used as read by nvidia-smi"), "device");
  EXPECT_EQ(metric("pynvml used"), "device");
  EXPECT_TRUE(calibration::row_setup(row, "LlamaForCausalLM").missing.empty());
  EXPECT_EQ(metric("wall-clock seconds"), "");
  // Checkpointing not stated is the framework's default; stated either way, it is the row's.
  EXPECT_EQ(calibration::row_setup(row, "LlamaForCausalLM").choices.get("grad_checkpointing"), nullptr);
  row.grad_checkpointing = false;
  EXPECT_EQ(*calibration::row_setup(row, "LlamaForCausalLM").choices.get("grad_checkpointing"), "false");
  row.grad_checkpointing.reset();
  row.metric = "max_memory_allocated";

  // The planner's value of `option` when the row's `field` says `text`, or "missing"; the field is restored.
  auto read_as = [&](std::string calibration::PublishedRow::*field, const char* option) {
    return [&row, field, option](const std::string& text) {
      const std::string kept = row.*field;
      row.*field = text;
      const auto s = calibration::row_setup(row, "LlamaForCausalLM");
      row.*field = kept;
      return s.missing.empty() ? *s.choices.get(option) : std::string("missing");
    };
  };
  const auto precision = read_as(&calibration::PublishedRow::precision, "precision");
  EXPECT_EQ(precision("bf16 AMP"), "amp-bf16");
  EXPECT_EQ(precision("mixed precision fp16 (GradScaler)"), "amp-fp16");
  EXPECT_EQ(precision("fp16_mixed"), "amp-fp16");
  EXPECT_EQ(precision("pure bf16"), "bf16");
  EXPECT_EQ(precision("16-true"), "fp16");
  EXPECT_EQ(precision("tf32"), "fp32");
  EXPECT_EQ(precision("bf16"), "missing");  // autocast or the whole model in bf16? not guessed

  const auto optimizer = read_as(&calibration::PublishedRow::optimizer, "optimizer");
  EXPECT_EQ(optimizer("sgd (momentum=0.9)"), "sgd-momentum");
  EXPECT_EQ(optimizer("SGD, nesterov"), "sgd-momentum");
  EXPECT_EQ(optimizer("sgd (momentum 0)"), "sgd");
  EXPECT_EQ(optimizer("sgd, no momentum"), "sgd");
  EXPECT_EQ(optimizer("sgd"), "sgd");
  EXPECT_EQ(optimizer("adamw_apex_fused"), "adamw-fused");
  // Numbers a row may state are read, never converted: an absurd one cannot throw.
  EXPECT_EQ(optimizer("sgd (momentum=" + std::string(400, '9') + ")"), "sgd-momentum");
  row.versions = "torch 1." + std::string(400, '9');
  EXPECT_NO_THROW(calibration::row_setup(row, "LlamaForCausalLM"));
  row.versions.clear();

  auto framework_missing = [&](const std::string& f) {
    row.framework = f;
    return !calibration::row_setup(row, "LlamaForCausalLM").missing.empty();
  };
  EXPECT_FALSE(framework_missing("PyTorch (custom training loop)"));
  EXPECT_FALSE(framework_missing("nanoGPT train.py"));
  EXPECT_TRUE(framework_missing("PyTorch Lightning Trainer"));
  EXPECT_TRUE(framework_missing("DeepSpeed ZeRO-3 (custom loop)"));
  EXPECT_TRUE(framework_missing("Unsloth"));

  // The trained head however the row names it, on the config's own class prefix.
  auto head = [&](const std::string& h) {
    row.task_head = h;
    return calibration::row_setup(row, "LlamaForCausalLM").class_name;
  };
  EXPECT_EQ(head("ForSequenceClassification(num_labels=2)"), "LlamaForSequenceClassification");
  EXPECT_EQ(head("AutoModelForCausalLM"), "LlamaForCausalLM");
  EXPECT_EQ(head("BertForTokenClassification"), "LlamaForTokenClassification");
  EXPECT_EQ(head("not stated (the script used a head for a different table)"), "");
}

TEST(PublishedPeaks, TheRowsGpuTextNamesItsCard) {
  auto name = [](const std::string& text) {
    const auto c = calibration::card_of(text);
    return c ? c->name : std::string("none");
  };
  EXPECT_EQ(name("NVIDIA A100-SXM4-80GB"), "A100-80GB");
  EXPECT_EQ(name("A100 (40 GB)"), "A100-40GB");
  EXPECT_EQ(name("1x NVIDIA L40S 48GB"), "L40S");  // not the L4
  EXPECT_EQ(name("RTX 4090 24 GB"), "RTX-4090");
  EXPECT_EQ(name("RTX 3090 24GB"), "RTX 3090 24GB");  // not in the catalogue: its stated memory
  EXPECT_EQ(calibration::card_of("RTX 3090 24GB")->memory_bytes, std::int64_t{24} << 30);
  EXPECT_EQ(name("a GPU"), "none");
}

TEST(PublishedPeaks, RowsBreakingTheSchemaNameTheRow) {
  const auto file = fs::temp_directory_path() / "neurarch_published_bad.json";
  {
    std::ofstream out(file);
    out << R"([{"id": "x", "source": "s", "model": "m", "mode": "full", "precision": "fp32", "optimizer": "sgd",
               "metric": "max_memory_allocated", "batch": 0, "oom": true}])";
  }
  try {
    calibration::read_published(file);
    FAIL() << "a batch of 0 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 0 (x)"), std::string::npos) << e.what();
  }
  fs::remove(file);
}
