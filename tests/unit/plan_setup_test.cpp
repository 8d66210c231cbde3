// The training-setup vocabulary on a graph small enough to check by hand: each precision, optimizer,
// gradient, loss, adapter and load choice changes exactly the terms its rule says.
#include <gtest/gtest.h>

#include <algorithm>

#include "blocks/blocks.hpp"
#include "core/error.hpp"
#include "plan/memory.hpp"
#include "plan/options.hpp"
#include "plan/plan.hpp"
#include "support/tiny_plan_graphs.hpp"

using namespace neurarch;
using namespace neurarch::plan;

namespace {

using neurarch::testing::exact_runtime;
using neurarch::testing::tiny_attention_lm;
using neurarch::testing::tiny_mlp_lm;

constexpr std::int64_t kParams = 10 * 8 + (16 * 8 + 16) + (8 * 16 + 8) + 10 * 8;  // 440

Setup with(Precision p, Optimizer o = Optimizer::AdamW) {
  Setup s;
  s.precision = p;
  s.optimizer = o;
  return s;
}

std::int64_t term(const MemoryPlan& m, const std::string& phase, const std::string& name) {
  for (const auto& p : m.phases)
    if (p.phase == phase)
      for (const auto& t : p.terms)
        if (t.name == name) return t.bytes;
  return -1;
}

// What the named node keeps for backward at batch 1.
std::int64_t node_bytes(const graph::Graph& g, const Setup& s, const std::string& node) {
  MemoryModel m(g, s, exact_runtime());
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].name == node) return m.node_activation_bytes(static_cast<int>(i), 1);
  return -1;
}

bool has_phase(const MemoryPlan& m, const std::string& phase) {
  return std::any_of(m.phases.begin(), m.phases.end(), [&](const PhaseMemory& p) { return p.phase == phase; });
}

}  // namespace

TEST(PlanSetup, PureBf16HalvesWeightsGradientsAndMoments) {
  auto g = tiny_mlp_lm(4);
  MemoryModel fp32(g, with(Precision::Fp32), exact_runtime());
  MemoryModel bf16(g, with(Precision::Bf16), exact_runtime());
  EXPECT_EQ(fp32.static_terms().parameters, kParams * 4);
  EXPECT_EQ(bf16.static_terms().parameters, kParams * 2);
  EXPECT_EQ(bf16.static_terms().gradients, kParams * 2);
  EXPECT_EQ(bf16.static_terms().optimizer_state, kParams * 2 * 2);  // exp_avg, exp_avg_sq in bf16
  EXPECT_EQ(bf16.static_terms().optimizer_temporaries, kParams * 2);  // foreach sqrt(exp_avg_sq)
  EXPECT_EQ(bf16.static_terms().autocast_copies, 0);                  // no autocast: no cast copies
  // Amp keeps fp32 master weights and adds a bf16 copy of each matmul weight.
  MemoryModel amp(g, with(Precision::AmpBf16), exact_runtime());
  EXPECT_EQ(amp.static_terms().parameters, kParams * 4);
  EXPECT_EQ(amp.static_terms().autocast_copies, (16 * 8 + 8 * 16 + 10 * 8) * 2);
}

TEST(PlanSetup, AdafactorFactorsTwoDimensionalWeightsIntoRowsAndColumns) {
  auto g = tiny_mlp_lm(4);
  MemoryModel m(g, with(Precision::Fp32, Optimizer::Adafactor), exact_runtime());
  // embedding [10, 8]: 10 + 8; fc1 [16, 8]: 16 + 8 and its bias 16 in full; fc2 [8, 16]: 8 + 16 and its
  // bias 8; head [10, 8]: 10 + 8. No first moment. fp32 statistics.
  EXPECT_EQ(m.static_terms().optimizer_state, (18 + 24 + 16 + 24 + 8 + 18) * 4);
  // One tensor at a time: grad**2 and the rebuilt second moment of the largest (128 values), fp32.
  EXPECT_EQ(m.static_terms().optimizer_temporaries, 128 * 2 * 4);
}

TEST(PlanSetup, NoOptimizerMeansNoOptimizerPhase) {
  auto g = tiny_mlp_lm(4);
  MemoryModel m(g, with(Precision::Fp16, Optimizer::None), exact_runtime());
  const auto plan = m.at(1);
  EXPECT_FALSE(has_phase(plan, "optimizer_step"));
  EXPECT_EQ(m.static_terms().optimizer_state, 0);
  EXPECT_EQ(term(plan, "backward", "optimizer_state"), 0);
  EXPECT_EQ(m.static_terms().gradients, kParams * 2);  // gradients are still made, in fp16
}

TEST(PlanSetup, SgdAndPagedOptimizers) {
  auto g = tiny_mlp_lm(4);
  MemoryModel sgd(g, with(Precision::Fp32, Optimizer::SGD), exact_runtime());
  EXPECT_EQ(sgd.static_terms().optimizer_state, 0);
  MemoryModel momentum(g, with(Precision::Bf16, Optimizer::SGDMomentum), exact_runtime());
  EXPECT_EQ(momentum.static_terms().optimizer_state, kParams * 2);
  // Paged state lives in managed memory (on the card, outside max_memory_allocated), but only for tensors of
  // 1e5 values and more: this graph's are all smaller, so bitsandbytes keeps their state in torch's allocator.
  MemoryModel paged(g, with(Precision::Fp32, Optimizer::PagedAdamW), exact_runtime());
  EXPECT_EQ(paged.static_terms().optimizer_state, kParams * 8);
  EXPECT_EQ(paged.static_terms().paged_optimizer_state, 0);
  EXPECT_FALSE(optimizer_state_paged(Optimizer::PagedAdamW, 99999));
  EXPECT_TRUE(optimizer_state_paged(Optimizer::PagedAdamW, 100000));
  EXPECT_TRUE(optimizer_state_paged(Optimizer::PagedAdamW8bit, 100000));
  EXPECT_FALSE(optimizer_state_paged(Optimizer::AdamW, 1000000));

  // Embedding and head of 400 x 256 = 102,400 values each are paged; the MLP's 256 x 16 matrices and the
  // biases are not.
  const auto big = tiny_mlp_lm(4, false, 400, 256, 16);
  MemoryModel split(big, with(Precision::Fp32, Optimizer::PagedAdamW), exact_runtime());
  const std::int64_t paged_values = 2 * 400 * 256, small_values = (256 * 16 + 16) + (16 * 256 + 256);
  EXPECT_EQ(split.static_terms().paged_optimizer_state, paged_values * 8);
  EXPECT_EQ(split.static_terms().optimizer_state, small_values * 8);
  const auto p = split.at(1);
  EXPECT_EQ(p.device_bytes, p.peak_allocated + paged_values * 8);
}

TEST(PlanSetup, KeptGradientsLiveThroughTheForwardPass) {
  auto g = tiny_mlp_lm(4);
  plan::Setup s = with(Precision::Fp32);
  MemoryModel freed(g, s, exact_runtime());
  s.keep_gradients = true;
  MemoryModel kept(g, s, exact_runtime());
  EXPECT_EQ(term(freed.at(1), "forward_end", "gradients"), 0);
  EXPECT_EQ(term(kept.at(1), "forward_end", "gradients"), kParams * 4);
  EXPECT_EQ(term(kept.at(1), "backward", "gradients"), kParams * 4);
}

TEST(PlanSetup, ChunkedLossBoundsTheLogitsTermByTheChunk) {
  auto g = tiny_mlp_lm(64);
  plan::Setup s = with(Precision::Fp32);
  MemoryModel ce(g, s, exact_runtime());
  // fp32 logits: no up-cast copy, and transformers (>= 4.46) shifts the labels, not the logits.
  EXPECT_EQ(ce.loss_at(1).forward_transient, 0);
  s.precision = Precision::AmpBf16;
  MemoryModel ce_half(g, s, exact_runtime());
  EXPECT_EQ(ce_half.loss_at(1).forward_transient, 64 * 10 * 4);  // the bf16 logits' fp32 up-cast, full
  s.precision = Precision::Fp32;
  s.loss = Loss::Chunked;
  s.loss_chunk = 8;
  MemoryModel chunked(g, s, exact_runtime());
  const auto l = chunked.loss_at(1);
  EXPECT_EQ(l.forward_transient, 8 * 10 * 4);  // one chunk up-cast at a time
  EXPECT_EQ(l.saved, 64 * 10 * 4);             // each chunk's log-probabilities, in the compute dtype
  s.loss = Loss::Fused;
  MemoryModel fused(g, s, exact_runtime());
  const auto f = fused.loss_at(2);
  EXPECT_EQ(f.logits, 0);
  EXPECT_EQ(f.forward_transient, 8 * 10 * (4 + 4));
  EXPECT_EQ(f.backward, 8 * 10 * (4 + 4));
  EXPECT_EQ(f.head_gradient, 0);  // the head's gradient is made chunk by chunk inside the loss
  s.loss = Loss::LogitsSum;
  MemoryModel sum(g, s, exact_runtime());
  EXPECT_EQ(sum.loss_at(1).saved, 0);
}

TEST(PlanSetup, HeldOutputsKeepTheLogitsThroughBackwardAndBesideTheNextForward) {
  auto g = tiny_mlp_lm(64);
  plan::Setup s = with(Precision::Bf16, Optimizer::None);
  s.loss = Loss::LogitsSum;
  s.hold_outputs = false;
  MemoryModel dropped(g, s, exact_runtime());
  s.hold_outputs = true;
  MemoryModel held(g, s, exact_runtime());
  const std::int64_t logits = 64 * 10 * 2;  // [64 tokens, 10] in bf16
  EXPECT_EQ(term(dropped.at(1), "backward", "logits"), 0);
  EXPECT_EQ(term(held.at(1), "backward", "logits"), logits);
  EXPECT_EQ(term(held.at(1), "forward_end", "previous_step_logits"), logits);
  EXPECT_EQ(held.at(1).peak_allocated - dropped.at(1).peak_allocated, logits);
}

TEST(PlanSetup, UntiedHeadIsAWeightOfItsOwn) {
  auto g = tiny_mlp_lm(4, /*tied=*/true);
  plan::Setup s = with(Precision::Bf16);
  MemoryModel tied(g, s, exact_runtime());
  s.untie_head = true;
  MemoryModel untied(g, s, exact_runtime());
  const std::int64_t head = 10 * 8;
  EXPECT_EQ(tied.static_terms().parameters, (kParams - head) * 2);
  EXPECT_EQ(untied.static_terms().parameters, kParams * 2);
  EXPECT_EQ(untied.static_terms().gradients, kParams * 2);
  EXPECT_EQ(untied.static_terms().optimizer_state, kParams * 2 * 2);
}

TEST(PlanSetup, QuantizedHeadIsStoredInFourBitsAndKeepsItsInputBefore0432) {
  auto g = tiny_mlp_lm(4);
  plan::Setup s = with(Precision::Bf16);
  s.mode = plan::Mode::QLoRA;
  s.qlora_keeps_input = true;  // bitsandbytes < 0.43.2
  MemoryModel kept(g, s, exact_runtime());
  s.quantize_head = true;
  MemoryModel quantized(g, s, exact_runtime());
  // The 10 x 8 head: 80 bf16 weights (160 bytes) become 80 x (0.5 + 1/64 + 4/(64 x 256)) = 41 bytes of NF4.
  EXPECT_EQ(kept.static_terms().parameters - quantized.static_terms().parameters, 160 - 41);
  // That bitsandbytes' MatMul4Bit keeps its input, the head's [4, 8] bf16 one, although the weight is frozen.
  EXPECT_EQ(node_bytes(g, s, "LM_Head") - node_bytes(g, [&] {
              auto k = s;
              k.quantize_head = false;
              return k;
            }(), "LM_Head"),
            4 * 8 * 2);
  // From 0.43.2 on it keeps only the packed weight: a frozen 4-bit head keeps nothing of its input.
  s.qlora_keeps_input = false;
  EXPECT_EQ(node_bytes(g, s, "LM_Head"), node_bytes(g, [&] {
              auto k = s;
              k.quantize_head = false;
              return k;
            }(), "LM_Head"));
  // Nor does an unadapted 4-bit MLP (the targets name the head alone), whose input a 0.42 base kept.
  s.lora_targets = {"lm_head"};
  const auto modern = node_bytes(g, s, "FFN_0");
  s.qlora_keeps_input = true;
  EXPECT_EQ(node_bytes(g, s, "FFN_0") - modern, 4 * 8 * 2 + 4 * 16 * 2);  // fc1's and fc2's inputs
}

TEST(PlanSetup, NF4BlockConstantsAndTheDequantizedCopies) {
  auto g = tiny_mlp_lm(4);
  plan::Setup s = with(Precision::Bf16);
  s.mode = plan::Mode::QLoRA;
  MemoryModel double_quant(g, s, exact_runtime());
  s.qlora_double_quant = false;
  MemoryModel plain(g, s, exact_runtime());
  // fc1 and fc2, 128 weights each: 128 x (0.5 + 1/64 + 4/(64 x 256)) = 66 bytes with double quantization,
  // 128 x (0.5 + 4/64) = 72 with an fp32 absmax per 64 weights.
  EXPECT_EQ(plain.static_terms().parameters - double_quant.static_terms().parameters, 2 * (72 - 66));
  // The largest 4-bit weight (128 values) dequantized for its matmul: bf16 (2 bytes each) ...
  EXPECT_EQ(plain.static_terms().dequant_transient, 128 * 2);
  // ... or, quantized from an fp16 copy, the fp16 weight and its bf16 cast at once ...
  s.qlora_quantized_from_fp16 = true;
  EXPECT_EQ(MemoryModel(g, s, exact_runtime()).static_terms().dequant_transient, 128 * (2 + 2));
  // ... but no cast when the step itself runs in fp16.
  s.precision = Precision::Fp16;
  EXPECT_EQ(MemoryModel(g, s, exact_runtime()).static_terms().dequant_transient, 128 * 2);
}

TEST(PlanSetup, EagerSoftmaxInFp32KeepsTheFp32ProbabilitiesAndTheirCast) {
  const std::int64_t scores = 2 * 32 * 32;  // heads x q x kv
  auto bytes_of = [&](bool fp32_softmax, Precision p) {
    auto g = tiny_attention_lm(32, fp32_softmax);
    plan::Setup s = with(p, Optimizer::None);
    s.attention = AttentionImpl::Eager;
    return node_bytes(g, s, "Attention_0");
  };
  // Pure bf16: a half softmax keeps its half output; an fp32 one keeps fp32 and the bf16 cast.
  EXPECT_EQ(bytes_of(true, Precision::Bf16) - bytes_of(false, Precision::Bf16), scores * (4 + 2 - 2));
  // fp32 training: nothing to cast.
  EXPECT_EQ(bytes_of(true, Precision::Fp32), bytes_of(false, Precision::Fp32));
  // Autocast runs softmax in fp32 either way.
  EXPECT_EQ(bytes_of(true, Precision::AmpBf16), bytes_of(false, Precision::AmpBf16));
}

TEST(PlanSetup, TorchBefore111SoftmaxKeepsItsInputToo) {
  const std::int64_t scores = 2 * 32 * 32;  // heads x q x kv
  auto bytes_of = [&](bool saves_input, Precision p) {
    auto g = tiny_attention_lm(32, false);
    plan::Setup s = with(p, Optimizer::None);
    s.attention = AttentionImpl::Eager;
    s.softmax_saves_input = saves_input;
    return node_bytes(g, s, "Attention_0");
  };
  // The input as softmax saw it: fp32 in fp32 training and under autocast (which runs softmax in fp32),
  // half in pure half.
  EXPECT_EQ(bytes_of(true, Precision::Fp32) - bytes_of(false, Precision::Fp32), scores * 4);
  EXPECT_EQ(bytes_of(true, Precision::AmpFp16) - bytes_of(false, Precision::AmpFp16), scores * 4);
  EXPECT_EQ(bytes_of(true, Precision::Fp16) - bytes_of(false, Precision::Fp16), scores * 2);

  // The loss's log_softmax likewise keeps the fp32 up-cast of half logits until backward (fp32 logits
  // are its input as they are, kept anyway).
  auto lm = tiny_mlp_lm(64);
  plan::Setup s = with(Precision::AmpFp16);
  s.softmax_saves_input = true;
  const auto kept = MemoryModel(lm, s, exact_runtime()).loss_at(1);
  EXPECT_EQ(kept.saved, 2 * 64 * 10 * 4);
  EXPECT_EQ(kept.forward_transient, 0);
  s.precision = Precision::Fp32;
  EXPECT_EQ(MemoryModel(lm, s, exact_runtime()).loss_at(1).saved, 64 * 10 * 4);
}

TEST(PlanSetup, AFusedQkvDropsItsInputOnceForItsAdapters) {
  const std::int64_t seq = 32, hidden = 16;
  auto bytes_of = [&](bool fused, Precision p) {
    auto g = tiny_attention_lm(seq, false);
    plan::Setup s = with(p, Optimizer::None);
    s.mode = Mode::LoRA;
    s.lora_rank = 2;
    s.lora_dropout = 0.1;
    s.lora_targets = {"q", "k", "v"};
    s.lora_fp32_adapters = false;  // litgpt's adapters are in the model's dtype: the dropped copy is bf16
    s.fused_qkv = fused;
    return node_bytes(g, s, "Attention_0");
  };
  // Pure bf16, frozen base: each adapter keeps a bool mask and a bf16 dropped copy of the input; litgpt's
  // one qkv linear keeps one of each where transformers' q, k and v keep three.
  EXPECT_EQ(bytes_of(false, Precision::Bf16) - bytes_of(true, Precision::Bf16), 2 * seq * hidden * (1 + 2));
}

TEST(PlanSetup, AdapterDtypeAndDora) {
  auto g = tiny_mlp_lm(4);
  plan::Setup s = with(Precision::Bf16);
  s.mode = Mode::LoRA;
  s.lora_rank = 2;
  s.lora_dropout = 0;
  const std::int64_t adapters = 2 * (16 + 8) + 2 * (8 + 16);  // fc1 and fc2; the head is not adapted
  MemoryModel peft(g, s, exact_runtime());
  EXPECT_EQ(peft.trainable_parameters(), adapters);
  EXPECT_EQ(peft.static_terms().gradients, adapters * 4);  // PEFT: fp32 adapters
  s.lora_fp32_adapters = false;
  MemoryModel base(g, s, exact_runtime());
  EXPECT_EQ(base.static_terms().gradients, adapters * 2);
  EXPECT_EQ(base.static_terms().optimizer_state, adapters * 2 * 2);
  s.dora = true;
  MemoryModel dora(g, s, exact_runtime());
  EXPECT_EQ(dora.trainable_parameters(), adapters + 16 + 8);  // one magnitude per output feature
  // Naming the head adapts it too.
  s.dora = false;
  s.lora_targets = {"fc1", "lm_head"};
  MemoryModel head(g, s, exact_runtime());
  EXPECT_EQ(head.trainable_parameters(), 2 * (16 + 8) + 2 * (10 + 8));
}

TEST(PlanSetup, LoraTargetsAreMatchedAsPeftMatchesThem) {
  auto g = tiny_mlp_lm(4);
  plan::Setup s = with(Precision::Bf16);
  s.mode = Mode::LoRA;
  s.lora_rank = 2;
  const std::int64_t fc1 = 2 * (16 + 8);
  s.lora_targets = {"mlp.fc1"};  // a dotted suffix of the module's name
  EXPECT_EQ(MemoryModel(g, s, exact_runtime()).trainable_parameters(), fc1);
  s.lora_targets = {"fc"};  // not a whole name: PEFT matches none, and refuses
  try {
    MemoryModel none(g, s, exact_runtime());
    FAIL() << "targets naming no module were planned";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--lora-targets"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("fc1, fc2"), std::string::npos) << e.what();
  }
  s.lora_targets = {"q\nproj"};  // the user's text, escaped: an error is one line
  try {
    MemoryModel none(g, s, exact_runtime());
    FAIL() << "targets naming no module were planned";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"q\\nproj\""), std::string::npos) << e.what();
  }
  // PEFT's "all-linear" is the default: every linear but the head.
  SetupChoices c;
  c.set_list("lora_targets", {"all-linear"});
  EXPECT_TRUE(plan_options(c, default_runtime()).lora.lora_targets.empty());
}

TEST(PlanSetup, LoadThenQuantizeHasALoadPhase) {
  auto g = tiny_mlp_lm(4);
  plan::Setup s = with(Precision::Bf16);
  s.mode = Mode::QLoRA;
  MemoryModel streaming(g, s, exact_runtime());
  EXPECT_FALSE(has_phase(streaming.at(1), "load"));
  s.qlora_load = QuantizedLoad::LoadThenQuantize;
  MemoryModel loaded(g, s, exact_runtime());
  EXPECT_EQ(term(loaded.at(1), "load", "parameters_at_load_dtype"), kParams * 2);
}

TEST(SetupOptions, TableChecksValuesAndAliases) {
  SetupChoices c;
  EXPECT_THROW(c.set("precision", "fp8"), Error);
  EXPECT_THROW(c.set("batch", "0"), Error);
  EXPECT_THROW(c.set("no_such_option", "1"), Error);
  c.set("optimizer", "adam-8bit");  // an older name, kept
  EXPECT_EQ(*c.get("optimizer"), "adamw-8bit");
  c.set_alias("no_autocast", true);
  EXPECT_EQ(*c.get("precision"), "fp32");
  const auto o = plan_options(c, default_runtime());
  EXPECT_EQ(o.full.precision, Precision::Fp32);
  EXPECT_EQ(o.full.optimizer, Optimizer::AdamW8bit);
  // Every option has a command-line spelling and help.
  for (const auto& spec : setup_options()) {
    EXPECT_TRUE(spec.cli.starts_with("--")) << spec.name;
    EXPECT_FALSE(spec.help.empty()) << spec.name;
  }
}

TEST(SetupOptions, FrameworkPresetsAndExplicitOverrides) {
  SetupChoices c;
  c.set("framework", "litgpt");
  c.set("qlora", "true");
  c.set_list("lora_targets", {"query", "value"});
  auto o = plan_options(c, default_runtime());
  EXPECT_EQ(o.full.precision, Precision::Bf16);
  EXPECT_FALSE(o.lora.lora_fp32_adapters);
  EXPECT_EQ(o.full.loss, Loss::Chunked);
  EXPECT_EQ(o.full.optimizer, Optimizer::AdamW);       // the full column keeps AdamW
  EXPECT_EQ(o.lora.optimizer, Optimizer::PagedAdamW);  // litgpt's QLoRA pages its optimizer
  // Lightning's plugin quantizes layer by layer (no load phase), from an fp16 copy, with bnb.nf4's
  // plain fp32 block constants.
  EXPECT_EQ(o.lora.qlora_load, QuantizedLoad::WhileLoading);
  EXPECT_TRUE(o.lora.qlora_quantized_from_fp16);
  EXPECT_FALSE(o.lora.qlora_double_quant);
  EXPECT_TRUE(o.full.qlora_double_quant);  // QLoRA-only settings stay out of the full column
  EXPECT_NE(std::find(o.lora.lora_targets.begin(), o.lora.lora_targets.end(), "q_proj"), o.lora.lora_targets.end());
  c.set("precision", "amp-bf16");  // explicit beats the preset
  EXPECT_EQ(plan_options(c, default_runtime()).full.precision, Precision::AmpBf16);

  SetupChoices old;
  old.set("framework", "hf-trainer@4.15");
  o = plan_options(old, default_runtime());
  EXPECT_EQ(o.full.precision, Precision::Fp32);
  EXPECT_TRUE(o.full.keep_gradients);
  EXPECT_FALSE(o.full.optimizer_foreach);
  EXPECT_EQ(o.runtime.cuda_context_bytes, 1343LL << 20);
  EXPECT_TRUE(o.full.softmax_saves_input);  // transformers 4.15 ran on torch <= 1.10
  old.set("framework", "hf-trainer@4.20");
  o = plan_options(old, default_runtime());
  EXPECT_TRUE(o.full.keep_gradients);
  EXPECT_FALSE(o.full.softmax_saves_input);  // 4.18+ on torch 1.11-1.13
  old.set("softmax_saves_input", "true");     // explicit beats the era
  EXPECT_TRUE(plan_options(old, default_runtime()).full.softmax_saves_input);
  SetupChoices tune;
  tune.set("framework", "torchtune");
  EXPECT_TRUE(plan_options(tune, default_runtime()).full.grad_checkpointing);  // its configs checkpoint
  tune.set("grad_checkpointing", "false");
  EXPECT_FALSE(plan_options(tune, default_runtime()).full.grad_checkpointing);
  SetupChoices now;
  now.set("framework", "hf-trainer");
  EXPECT_FALSE(plan_options(now, default_runtime()).full.keep_gradients);
  SetupChoices accumulating;
  accumulating.set("grad_accum", "4");
  EXPECT_TRUE(plan_options(accumulating, default_runtime()).full.keep_gradients);
  SetupChoices unknown;
  unknown.set("framework", "hf-trainer@3.0");
  EXPECT_THROW(plan_options(unknown, default_runtime()), Error);
}
