// Jamba: every ground-truth class, and the interleaving of attention / Mamba and MoE / dense layers.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "unit/lint_test_support.hpp"

using namespace neurarch;

TEST(JambaGraph, AttentionAndExpertLayersFollowTheirPeriodsAndOffsets) {
  auto g = model::build_model(Config::parse(R"({"architectures": ["JambaForCausalLM"], "model_type": "jamba",
      "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 6, "num_attention_heads": 4,
      "num_key_value_heads": 2, "vocab_size": 1000, "num_experts": 4, "attn_layer_period": 3,
      "attn_layer_offset": 2, "expert_layer_period": 3, "expert_layer_offset": 0, "mamba_dt_rank": 8})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  for (int i : {2, 5}) {
    EXPECT_NE(g.find_tensor("model.layers." + std::to_string(i) + ".self_attn.k_proj.weight"), nullptr);
    EXPECT_EQ(g.find_tensor("model.layers." + std::to_string(i) + ".mamba.A_log"), nullptr);
  }
  EXPECT_EQ(g.find_tensor("model.layers.1.mamba.dt_layernorm.weight")->shape, (graph::Shape{8}));
  EXPECT_EQ(g.find_tensor("model.layers.1.mamba.x_proj.weight")->shape, (graph::Shape{8 + 2 * 16, 512}));
  EXPECT_NE(g.find_tensor("model.layers.3.feed_forward.experts.3.down_proj.weight"), nullptr);
  EXPECT_NE(g.find_tensor("model.layers.4.feed_forward.down_proj.weight"), nullptr);
  for (const auto& n : g.nodes) {
    if (n.attention) {
      EXPECT_FALSE(n.attention->rotary) << n.name;
    }
  }
}

TEST(JambaLint, AttentionWithoutPositionsIsNotJudgedAsRotary) {
  // ai21labs/Jamba-v0.1's context: 262144 positions, no rope_theta (its attention has no positions at all).
  const auto config = lint_test::json::parse(R"({"architectures": ["JambaForCausalLM"], "model_type": "jamba",
      "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 8, "num_attention_heads": 4,
      "num_key_value_heads": 2, "vocab_size": 1000, "max_position_embeddings": 262144})");
  EXPECT_TRUE(lint_test::of(lint_test::lint(config), "rope-theta-short-for-context").empty());
}
