// LFM2-MoE: LFM2's mixers, dense w1/w3/w2 on the first num_dense_layers layers at the full intermediate_size, and a
// routed block with its fp32 expert_bias buffer after.
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(Lfm2MoeGraph, DenseFirstLayersThenExpertsWithTheirBias) {
  auto g = model::build_model(Config::parse(R"({"architectures": ["Lfm2MoeForCausalLM"], "model_type": "lfm2_moe",
      "hidden_size": 256, "intermediate_size": 640, "moe_intermediate_size": 96, "num_hidden_layers": 3,
      "num_attention_heads": 4, "num_key_value_heads": 2, "num_experts": 4, "num_experts_per_tok": 2,
      "num_dense_layers": 1, "vocab_size": 1000, "layer_types": ["conv", "full_attention", "conv"]})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Not shrunk to 2/3 as LFM2's own MLP is.
  EXPECT_EQ(g.find_tensor("model.layers.0.feed_forward.w1.weight")->shape, (graph::Shape{640, 256}));
  EXPECT_NE(g.find_tensor("model.layers.0.conv.in_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.0.feed_forward.expert_bias"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.1.feed_forward.experts.3.w2.weight")->shape, (graph::Shape{256, 96}));
  EXPECT_EQ(g.find_tensor("model.layers.1.feed_forward.gate.weight")->shape, (graph::Shape{4, 256}));
  const auto* bias = g.find_tensor("model.layers.2.feed_forward.expert_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->kind, graph::TensorKind::Buffer);
  EXPECT_EQ(bias->dtype, DType::F32);
  EXPECT_NE(g.find_tensor("model.layers.1.self_attn.q_layernorm.weight"), nullptr);
}
