// Planner terms on graphs small enough to check by hand, monotonicity, and the solvers' edges.
#include <gtest/gtest.h>

#include "blocks/blocks.hpp"
#include "core/error.hpp"
#include "plan/fit.hpp"
#include "plan/plan.hpp"
#include "support/tiny_plan_graphs.hpp"

using namespace neurarch;
using namespace neurarch::plan;

namespace {

using neurarch::testing::exact_runtime;
using neurarch::testing::tiny_mlp_lm;

plan::Setup fp32_full() {
  plan::Setup s;
  s.precision = plan::Precision::Fp32;
  return s;
}

Card card(std::int64_t bytes, std::optional<double> usd = 1.0) {
  return Card{"Test", bytes, 100, true, 1000, usd, "test"};
}

std::int64_t term(const MemoryPlan& m, const std::string& phase, const std::string& name) {
  for (const auto& p : m.phases)
    if (p.phase == phase)
      for (const auto& t : p.terms)
        if (t.name == name) return t.bytes;
  return -1;
}

}  // namespace

TEST(PlanTerms, TinyMlpByHand) {
  auto g = tiny_mlp_lm(4);
  MemoryModel m(g, fp32_full(), exact_runtime());
  const std::int64_t params = 10 * 8 + (16 * 8 + 16) + (8 * 16 + 8) + 10 * 8;  // 440
  EXPECT_EQ(m.trainable_parameters(), params);
  const auto& st = m.static_terms();
  EXPECT_EQ(st.parameters, params * 4);
  EXPECT_EQ(st.gradients, params * 4);
  EXPECT_EQ(st.optimizer_state, params * 8);        // AdamW: two fp32 moments
  EXPECT_EQ(st.optimizer_temporaries, params * 4);  // foreach step: sqrt(exp_avg_sq)
  EXPECT_EQ(st.autocast_copies, 0);

  // Saved for backward, fp32: ids (4 x int64), fc1 input 4x8, GELU input 4x16, fc2 input 4x16,
  // LM head input 4x8, all 4 bytes.
  auto plan = m.at(1);
  EXPECT_EQ(term(plan, "forward_end", "activations"), 4 * 8 + (32 + 64 + 64 + 32) * 4);
  EXPECT_EQ(term(plan, "forward_end", "logits"), 4 * 10 * 4);
  // The log-softmax only: fp32 logits need no up-cast copy, and transformers 5 shifts the labels, not the logits.
  EXPECT_EQ(term(plan, "forward_end", "loss_buffers"), 4 * 10 * 4);
  EXPECT_EQ(term(plan, "optimizer_step", "gradients"), params * 4);
  EXPECT_EQ(plan.device_bytes, plan.peak_allocated);
}

TEST(PlanTerms, AutocastAddsWeightCopiesAndHalvesMatmulActivations) {
  auto g = tiny_mlp_lm(4);
  plan::Setup s;  // bf16 autocast
  MemoryModel m(g, s, exact_runtime());
  EXPECT_EQ(m.static_terms().autocast_copies, (16 * 8 + 8 * 16 + 10 * 8) * 2);
  // The embedding output is fp32, so fc1 keeps a bf16 cast (2 bytes); GELU input, fc2 input
  // and the LM head input are bf16.
  EXPECT_EQ(term(m.at(1), "forward_end", "activations"), 4 * 8 + 32 * 2 + 64 * 2 + 64 * 2 + 32 * 2);
}

TEST(PlanTerms, OptimizerChoices) {
  auto g = tiny_mlp_lm(4);
  for (auto [opt, state, temp] : {std::tuple{Optimizer::AdamWFused, 8.0, 0.0}, {Optimizer::SGDMomentum, 4.0, 0.0}}) {
    plan::Setup s = fp32_full();
    s.optimizer = opt;
    MemoryModel m(g, s, exact_runtime());
    EXPECT_EQ(m.static_terms().optimizer_state, static_cast<std::int64_t>(440 * state));
    EXPECT_EQ(m.static_terms().optimizer_temporaries, static_cast<std::int64_t>(440 * temp));
  }
}

TEST(PlanTerms, LoraTrainsAdaptersOnlyAndSaysWhatDropoutCosts) {
  auto g = tiny_mlp_lm(4);
  plan::Setup s;
  s.mode = Mode::LoRA;
  s.lora_rank = 2;
  s.lora_dropout = 0.1;
  MemoryModel m(g, s, exact_runtime());
  EXPECT_EQ(m.trainable_parameters(), 2 * (16 + 8) + 2 * (8 + 16));  // fc1, fc2; never the head
  ASSERT_FALSE(m.activations().notes.empty());
  EXPECT_NE(m.activations().notes[0].find("dropped copy"), std::string::npos);
}

// Every adapted linear keeps the adapter's dropout mask and dropped copy, the down projection as
// much as the input projections; PEFT drops an fp32 copy of the input for fp32 adapters, so the CPU's
// noise mask (kept in the dropped tensor's dtype) is fp32 whatever the base dtype. By hand, per sample
// (4 tokens, width 8, fc1 8->16, fc2 16->8, rank 2, bf16 autocast): fc1's input 32 values: mask 32 x 4,
// copy 32 x 2; the adapters' A outputs 2 x 4 x 2 values x 2; GELU's input 64 x 2; fc2's input 64
// values: mask 64 x 4, copy 64 x 2; the frozen base keeps no input of its own.
TEST(PlanTerms, LoraDropoutCountsEveryAdaptedLinearInTheAdaptersDtype) {
  auto g = tiny_mlp_lm(4);
  plan::Setup s;
  s.mode = Mode::LoRA;
  s.lora_rank = 2;
  s.lora_dropout = 0.1;
  s.dropout_mask_bytes = 0;
  MemoryModel m(g, s, exact_runtime());
  std::int64_t ffn = -1;
  for (const auto& a : m.activations().nodes)
    if (g.nodes[static_cast<std::size_t>(a.node)].name == "FFN_0") ffn = a.bytes_per_sample();
  EXPECT_EQ(ffn, 32 * 4 + 32 * 2 + 16 * 2 + 64 * 2 + 64 * 4 + 64 * 2);
  s.lora_fp32_adapters = false;  // torchtune / litgpt: the input is dropped as it comes (bf16 here)
  MemoryModel base(g, s, exact_runtime());
  for (const auto& a : base.activations().nodes)
    if (g.nodes[static_cast<std::size_t>(a.node)].name == "FFN_0") ffn = a.bytes_per_sample();
  EXPECT_EQ(ffn, 32 * 2 + 32 * 2 + 16 * 2 + 64 * 2 + 64 * 2 + 64 * 2);
}

TEST(PlanTerms, GradientCheckpointingKeepsLessForward) {
  auto g = tiny_mlp_lm(64);
  plan::Setup plain, ckpt;
  ckpt.grad_checkpointing = true;
  EXPECT_LT(term(MemoryModel(g, ckpt, exact_runtime()).at(1), "forward_end", "activations"),
            term(MemoryModel(g, plain, exact_runtime()).at(1), "forward_end", "activations"));
}

TEST(PlanMonotone, MemoryGrowsWithBatchAndSequence) {
  auto g128 = tiny_mlp_lm(128), g256 = tiny_mlp_lm(256);
  for (Mode mode : {Mode::Full, Mode::LoRA, Mode::QLoRA}) {
    plan::Setup s;
    s.mode = mode;
    MemoryModel m(g128, s, default_runtime()), m2(g256, s, default_runtime());
    std::int64_t previous = 0;
    for (std::int64_t b = 1; b <= 64; b *= 2) {
      auto now = m.at(b).device_bytes;
      EXPECT_GT(now, previous) << mode_name(mode) << " batch " << b;
      previous = now;
      EXPECT_GT(m2.at(b).device_bytes, now);
    }
  }
}

TEST(PlanSolver, EdgeCases) {
  auto g = tiny_mlp_lm(4);
  MemoryModel m(g, plan::Setup{}, default_runtime());
  EXPECT_EQ(max_batch(m, card(1 << 20)), 0);                 // the CUDA context alone does not fit
  EXPECT_EQ(max_batch(m, card(std::int64_t{1} << 40), 4096), 4096);  // fits at any batch: the cap
  // Whatever the solver returns fits, and one more does not.
  const double keep = 1.0 - default_runtime().safety_margin_fraction;
  Card mid = card(static_cast<std::int64_t>(static_cast<double>(m.at(1000).device_bytes + 1000) / keep));
  auto b = max_batch(m, mid);
  EXPECT_GE(b, 1000);
  EXPECT_TRUE(m.fits(mid, b));
  EXPECT_FALSE(m.fits(mid, b + 1));
}

TEST(PlanSolver, UnpricedCardsAreCostedButNotChosenOverPricedOnes) {
  auto g = tiny_mlp_lm(16);
  PlanOptions o;
  o.full.mode = Mode::Full;
  o.lora.mode = Mode::LoRA;
  Card priced = card(std::int64_t{8} << 30, 2.0), unpriced = card(std::int64_t{80} << 30, std::nullopt);
  priced.name = "Priced";
  unpriced.name = "Unpriced";
  o.cards = {priced, unpriced};
  auto p = make_plan(g, o);
  ASSERT_TRUE(p.cost && p.cost->cheapest);
  EXPECT_EQ(p.cost->cheapest->card, "Priced");
  ASSERT_EQ(p.cost->cards.size(), 2u);
  for (const auto& r : p.cost->cards) {
    if (r.card == "Unpriced") {
      EXPECT_FALSE(r.usd.has_value());
    }
  }
  EXPECT_FALSE(p.split.has_value());
}

TEST(PlanSolver, SplitWhenNoCardHoldsBatchOne) {
  auto g = tiny_mlp_lm(4096);
  MemoryModel m(g, plan::Setup{}, default_runtime());
  PlanOptions o;
  o.full.mode = Mode::Full;
  o.lora.mode = Mode::LoRA;
  Card small = card(m.at(1).device_bytes - (1 << 20));
  o.cards = {small};
  auto p = make_plan(g, o);
  ASSERT_TRUE(p.split.has_value());
  EXPECT_LT(std::max(p.split->stages[0].device_bytes, p.split->stages[1].device_bytes), m.at(1).device_bytes +
                                                                                             default_runtime().cuda_context_bytes);
}

TEST(PlanOptionsCheck, BadOptionsAreClearErrors) {
  auto g = tiny_mlp_lm(4);
  PlanOptions o;
  o.full.batch = 0;
  EXPECT_THROW(make_plan(g, o), Error);
  o.full.batch = 1;
  o.lora.lora_rank = 0;
  EXPECT_THROW(make_plan(g, o), Error);
  EXPECT_THROW(find_card(default_cards(), "GTX-480"), Error);
  EXPECT_EQ(find_card(default_cards(), "h100-80gb").name, "H100-80GB");
}

TEST(PlanCatalogue, EveryCardHasItsSource) {
  const auto& cards = default_cards();
  EXPECT_GE(cards.size(), 10u);
  for (const auto& c : cards) {
    EXPECT_FALSE(c.source.empty()) << c.name;
    EXPECT_GT(c.memory_bytes, std::int64_t{14} << 30) << c.name;
  }
}

TEST(PlanTerms, OneTransformerBlockByHand) {
  // tokens (4) -> embedding (10 x 8) -> pre-norm block: LN, 2-head attention (head_dim 4), add,
  // LN, GELU MLP 8 -> 16 -> 8, add. fp32, SDPA, no dropout.
  graph::GraphBuilder b;
  auto x = b.input({4}, "tokens");
  x = blocks::token_embedding(b, x, "Token_Embedding", graph::Scope("embed"), 10, 8);
  b.set_block(0);
  blocks::PreNormLayer layer;
  layer.norm1 = {graph::Scope("ln1")};
  layer.attention = {.hidden = 8, .heads = 2, .module = graph::Scope("attn"), .q = graph::Scope("attn.q"),
                     .k = graph::Scope("attn.k"), .v = graph::Scope("attn.v"), .o = graph::Scope("attn.o")};
  layer.norm2 = {graph::Scope("ln2")};
  layer.ffn = {.hidden = 8, .intermediate = 16, .activation = "gelu", .module = graph::Scope("mlp"),
               .up = graph::Scope("mlp.up"), .down = graph::Scope("mlp.down")};
  x = blocks::pre_norm_layer(b, x, 0, layer);
  auto g = b.finish(x);

  MemoryModel m(g, fp32_full(), exact_runtime());
  const std::int64_t ids = 4 * 8;
  const std::int64_t layer_norm = 4 * 8 * 4 + 4 * 2 * 4;  // input + mean/rstd
  // q/k/v share one fp32 input; SDPA keeps q, k, v, its output and the log-sum-exp; o keeps its input.
  const std::int64_t attention = 4 * 8 * 4 + 4 * (2 + 2 + 2) * 4 * 4 + 4 * 8 * 4 + 2 * 4 * 4 + 4 * 8 * 4;
  const std::int64_t mlp = 4 * 8 * 4 + 4 * 16 * 4 + 4 * 16 * 4;  // up input, GELU input, down input
  EXPECT_EQ(term(m.at(1), "forward_end", "activations"), ids + 2 * layer_norm + attention + mlp);
  EXPECT_EQ(term(m.at(3), "forward_end", "activations"), 3 * (ids + 2 * layer_norm + attention + mlp));
  const std::int64_t params = 80 + 2 * 16 + 4 * (8 * 8 + 8) + (16 * 8 + 16) + (8 * 16 + 8);
  EXPECT_EQ(m.trainable_parameters(), params);
}
