#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

TEST(Ernie45MoeParameters, DefaultsAreTwentyOneBWithThreeBActive) {
  // The class defaults are ERNIE-4.5-21B-A3B: 21B total, 3B active per token.
  auto g = neurarch::model::build_model(neurarch::Config::parse(
      R"({"model_type": "ernie4_5_moe", "architectures": ["Ernie4_5_MoeForCausalLM"]})", "config.json")).graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.saved_scalars(), 21'825'437'888);
  // Layer 0 is dense; layers 1-27 route 6 of 64 experts of 3 x 1536 x 2560.
  EXPECT_NE(g.find_tensor("model.layers.0.mlp.gate_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.27.mlp.moe_statics.e_score_correction_bias")->shape,
            (neurarch::graph::Shape{1, 64}));
  EXPECT_EQ(g.active_parameter_count(), 21'825'437'888 - 27LL * 58 * 3 * 1536 * 2560);
}

TEST(Ernie45MoeParameters, RouterCorrectionBiasIsAFrozenParameter) {
  // Ernie4_5_MoeStatics: nn.Parameter(..., requires_grad=False): saved and counted, never trained.
  auto g = neurarch::model::build_model(neurarch::Config::parse(
      R"({"model_type": "ernie4_5_moe", "num_hidden_layers": 3, "hidden_size": 64, "intermediate_size": 128,
          "moe_intermediate_size": 32, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100,
          "moe_num_experts": 8, "moe_k": 2})",
      "config.json")).graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto* bias = g.find_tensor("layers.2.mlp.moe_statics.e_score_correction_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_TRUE(bias->frozen);
  EXPECT_EQ(bias->kind, neurarch::graph::TensorKind::Parameter);
  EXPECT_FALSE(g.find_tensor("layers.2.mlp.gate.weight")->frozen);
  EXPECT_EQ(g.frozen_parameter_count(), 2 * 8);  // layers 1 and 2 route; layer 0 is dense
}
