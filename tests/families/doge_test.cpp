// Doge: every ground-truth class, and the cross-domain MoE (is_moe) with its product-key router.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(DogeGraph, CrossDomainMoeKeepsTheDenseMlpAsSharedExpertAndRoutesSingleNeuronExperts) {
  auto g = model::build_model(Config::parse(R"({"architectures": ["DogeForCausalLM"], "model_type": "doge",
      "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 2, "vocab_size": 1000, "is_moe": true, "num_experts": 1024,
      "num_experts_per_tok": 16})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.layers.1.mlp.router_gate.weight")->shape, (graph::Shape{64, 256}));
  EXPECT_EQ(g.find_tensor("model.layers.1.mlp.down_embed.weight")->shape, (graph::Shape{1024, 256}));
  EXPECT_EQ(g.find_tensor("model.layers.1.mlp.gate_proj.weight")->shape, (graph::Shape{512, 256}));
  EXPECT_EQ(g.find_tensor("model.layers.0.self_attn.dt_proj.weight")->shape, (graph::Shape{2, 128}));
  EXPECT_EQ(g.find_tensor("model.layers.0.self_attn.A")->shape, (graph::Shape{2}));
  ASSERT_TRUE(g.has_experts());
  // Each token runs 16 of the 1024 experts' two 256-wide vectors per layer.
  EXPECT_EQ(g.parameter_count() - g.active_parameter_count(), 2 * (1024 - 16) * 2 * 256);
}
