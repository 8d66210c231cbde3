// Llama 4's language model: every ground-truth class, Scout's and Maverick's published totals and
// active parameters, interleaved dense / MoE layers, no-RoPE layers and the dense expert dispatch.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/cost.hpp"

using namespace neurarch;

namespace {

graph::Graph build(const std::string& json) { return model::build_model(Config::parse(json, "config.json")).graph; }

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

// meta-llama/Llama-4-Maverick-17B-128E's text_config (architecture keys).
constexpr const char* kMaverickText = R"({"model_type": "llama4_text", "architectures": ["Llama4ForCausalLM"],
  "hidden_size": 5120, "intermediate_size": 8192, "intermediate_size_mlp": 16384, "num_hidden_layers": 48,
  "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128, "num_local_experts": 128,
  "num_experts_per_tok": 1, "interleave_moe_layer_step": 2, "vocab_size": 202048, "use_qk_norm": false})";

}  // namespace

TEST(Llama4TextParameters, ScoutDefaultsSeventeenBillionActive) {
  auto g = build(R"({"model_type": "llama4_text", "architectures": ["Llama4ForCausalLM"]})");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.saved_scalars(), 107'769'861'120);
  // 16 routed experts of 5120 x 16384 + 8192 x 5120 in all 48 layers; each token skips 15.
  EXPECT_EQ(g.parameter_count() - g.active_parameter_count(), 48LL * 15 * (5120LL * 16384 + 8192LL * 5120));
  EXPECT_EQ(g.active_parameter_count(), 17'172'894'720);  // published: 17B active
}

TEST(Llama4TextParameters, MaverickInterleavesDenseAndSparseLayers) {
  auto g = build(kMaverickText);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Published: 400B total, 17B active (the text model; the vision tower adds under 1B).
  EXPECT_EQ(g.saved_scalars(), 400'711'848'960);
  EXPECT_EQ(g.active_parameter_count(), 17'184'691'200);
  EXPECT_NE(g.find_tensor("model.layers.0.feed_forward.gate_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.0.feed_forward.gate_proj.weight")->shape, (graph::Shape{16384, 5120}));
  EXPECT_EQ(g.find_tensor("model.layers.1.feed_forward.experts.gate_up_proj")->shape,
            (graph::Shape{128, 5120, 16384}));
  EXPECT_EQ(g.find_tensor("model.layers.1.feed_forward.shared_expert.down_proj.weight")->shape,
            (graph::Shape{5120, 8192}));
  EXPECT_EQ(g.find_tensor("model.layers.2.feed_forward.router.weight"), nullptr);
}

TEST(Llama4TextGraph, NoRopeLayersAndExplicitMoeLayers) {
  auto g = build(R"({"model_type": "llama4_text", "hidden_size": 64, "intermediate_size": 32,
      "intermediate_size_mlp": 96, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2,
      "head_dim": 16, "num_local_experts": 4, "vocab_size": 100, "moe_layers": [2]})");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // no_rope_layer_interval 4: layer 3 has no RoPE.
  EXPECT_TRUE(node(g, "Attention_0")->attention->rotary);
  EXPECT_FALSE(node(g, "Attention_3")->attention->rotary);
  EXPECT_EQ(g.find_tensor("layers.1.feed_forward.up_proj.weight")->shape, (graph::Shape{96, 64}));
  EXPECT_EQ(g.find_tensor("layers.2.feed_forward.experts.down_proj")->shape, (graph::Shape{4, 32, 64}));
  auto listed = build(R"({"model_type": "llama4_text", "hidden_size": 64, "intermediate_size": 32,
      "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
      "num_local_experts": 4, "vocab_size": 100, "no_rope_layers": [0, 1]})");
  EXPECT_FALSE(node(listed, "Attention_0")->attention->rotary);
  EXPECT_TRUE(node(listed, "Attention_1")->attention->rotary);
}

TEST(Llama4TextPlanner, EveryTokenRunsThroughEveryExpertAsInTheReference) {
  auto g = build(R"({"model_type": "llama4_text", "hidden_size": 8, "intermediate_size": 16,
      "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4,
      "num_local_experts": 4, "num_experts_per_tok": 1, "vocab_size": 10, "max_position_embeddings": 4})");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto* moe = node(g, "MoE_0");
  ASSERT_TRUE(moe && moe->moe);
  EXPECT_EQ(moe->moe->shared_intermediate, 16);
  const auto c = plan::node_costs(g, plan::Setup{})[static_cast<std::size_t>(moe->index)];
  // 4 tokens: router [4, 8]; Llama4TextMoe repeats every token into all 4 routed experts (8 x 32 + 16 x 8
  // each, the unchosen scaled by a zero score); the shared expert (3 x 8 x 16) for every token.
  EXPECT_EQ(moe->moe->dispatched, 4);
  EXPECT_DOUBLE_EQ(c.flops_forward, 2.0 * 4 * (4 * 8 + 4 * (8 * 32 + 16 * 8) + 3 * 8 * 16));
  // Active parameters stay top-1: what the model card counts.
  EXPECT_EQ(g.parameter_count() - g.active_parameter_count(), 3 * (8 * 32 + 16 * 8));
}
