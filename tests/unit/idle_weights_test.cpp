// Weights a model stores but its forward never runs (graph::Operand::Idle: BartForCausalLM's encoder_attn, LUKE's
// entity stream, a depth neck's first residual unit): requires_grad is on, so they count as trainable, but backward
// never reaches them, so they get no gradient and no optimizer state (torch's optimizers skip a .grad of None). PEFT
// still wraps an idle nn.Linear: its adapter is trainable, and never runs either.
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/memory.hpp"
#include "support/tiny_plan_graphs.hpp"

namespace {

using neurarch::Config;
using neurarch::model::BuildOptions;
using neurarch::model::build_model;
namespace plan = neurarch::plan;

neurarch::graph::Graph bart_decoder_alone() {
  BuildOptions options;
  options.class_name = "BartForCausalLM";
  return build_model(Config::parse(R"({"model_type": "bart", "d_model": 64, "decoder_layers": 2, "encoder_layers": 2,
                                       "decoder_attention_heads": 4, "encoder_attention_heads": 4,
                                       "decoder_ffn_dim": 128, "encoder_ffn_dim": 128, "vocab_size": 100,
                                       "max_position_embeddings": 64})",
                                   "config.json"),
                     options)
      .graph;
}

TEST(IdleWeights, StoredCrossAttentionGetsNoGradientOrOptimizerState) {
  const auto g = bart_decoder_alone();
  std::int64_t total = 0, idle = 0;
  for (const auto& t : g.tensors) {
    if (!t.saved() || t.kind != neurarch::graph::TensorKind::Parameter) continue;
    total += t.scalars();
    if (t.name.find("encoder_attn") != std::string::npos) {
      idle += t.scalars();
      EXPECT_EQ(t.operand, neurarch::graph::Operand::Idle) << t.name;
    }
  }
  // Per layer: four 64 x 64 projections with biases, and the sublayer's LayerNorm.
  EXPECT_EQ(idle, 2 * (4 * (64 * 64 + 64) + 2 * 64));
  plan::Setup s;
  s.precision = plan::Precision::Fp32;
  const plan::MemoryModel m(g, s, neurarch::testing::exact_runtime());
  EXPECT_EQ(m.trainable_parameters(), total);
  EXPECT_EQ(m.static_terms().gradients, (total - idle) * 4);
  EXPECT_EQ(m.static_terms().optimizer_state, (total - idle) * 8);  // AdamW's two fp32 moments
}

TEST(IdleWeights, PeftWrapsAStoredLinearButItsAdapterNeverRuns) {
  const auto g = bart_decoder_alone();
  plan::Setup s;
  s.mode = plan::Mode::LoRA;
  s.lora_rank = 4;
  const plan::MemoryModel m(g, s, neurarch::testing::exact_runtime());
  // PEFT's default for BART adapts q_proj and v_proj, encoder_attn's included: 2 layers x 2 modules x 2 attentions,
  // each rank x (64 + 64).
  s.lora_targets = {"q_proj", "v_proj"};
  const plan::MemoryModel targeted(g, s, neurarch::testing::exact_runtime());
  EXPECT_EQ(targeted.trainable_parameters(), 2 * 2 * 2 * 4 * (64 + 64));
  // Their gradients and moments are the self-attention adapters' only (fp32 adapters).
  EXPECT_EQ(targeted.static_terms().gradients, 2 * 2 * 4 * (64 + 64) * 4);
  // No node keeps an idle adapter's A output: the LoRA A outputs are the self-attention's alone.
  std::int64_t a_outputs = 0;
  for (const auto& n : targeted.activations().nodes)
    for (const auto& t : n.saved)
      if (t.what == "LoRA A outputs") a_outputs += t.elements;
  const std::int64_t tokens = g.nodes.front().out.front();
  EXPECT_EQ(a_outputs, 2 * 2 * tokens * 4);
  EXPECT_GT(m.trainable_parameters(), targeted.trainable_parameters());
}

}  // namespace
