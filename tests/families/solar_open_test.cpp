// Solar Open: GLM-4.5's mixture on every layer (first_k_dense_replace and intermediate_size are not its keys) and
// Llama's attention (no q/k norms even when a config says use_qk_norm).
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(SolarOpenGraph, EveryLayerAMixtureWithoutQkNorms) {
  auto g = model::build_model(Config::parse(R"({"architectures": ["SolarOpenForCausalLM"], "model_type": "solar_open",
      "hidden_size": 256, "moe_intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 2, "head_dim": 64, "n_routed_experts": 4, "n_shared_experts": 1,
      "num_experts_per_tok": 2, "first_k_dense_replace": 1, "use_qk_norm": true, "vocab_size": 1000})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  int moe = 0;
  for (const auto& node : g.nodes) moe += node.moe.has_value();
  EXPECT_EQ(moe, 2);
  EXPECT_EQ(g.find_tensor("model.layers.0.mlp.gate_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.0.mlp.shared_experts.gate_proj.weight")->shape, (graph::Shape{64, 256}));
  EXPECT_NE(g.find_tensor("model.layers.0.mlp.gate.e_score_correction_bias"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.1.self_attn.q_norm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.1.self_attn.o_proj.bias"), nullptr);
}
