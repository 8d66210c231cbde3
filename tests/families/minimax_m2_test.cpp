// MiniMax-M2: Mixtral's experts with a persistent e_score_correction_bias, and q/k RMSNorms over all heads at once.
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(MiniMaxM2Graph, FullWidthQkNormsAndTheRoutersCorrectionBias) {
  auto g = model::build_model(Config::parse(R"({"architectures": ["MiniMaxM2ForCausalLM"], "model_type": "minimax_m2",
      "hidden_size": 256, "intermediate_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 2, "head_dim": 48, "num_local_experts": 4, "num_experts_per_tok": 2,
      "sliding_window": 32, "vocab_size": 1000, "torch_dtype": "bfloat16"})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.layers.0.self_attn.q_norm.weight")->shape, (graph::Shape{4 * 48}));
  EXPECT_EQ(g.find_tensor("model.layers.0.self_attn.k_norm.weight")->shape, (graph::Shape{2 * 48}));
  EXPECT_EQ(g.find_tensor("model.layers.1.block_sparse_moe.experts.3.w2.weight")->shape, (graph::Shape{256, 64}));
  const auto* bias = g.find_tensor("model.layers.1.block_sparse_moe.e_score_correction_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->kind, graph::TensorKind::Buffer);
  EXPECT_EQ(bias->dtype, DType::BF16);  // created in the model's dtype, unlike GLM-4.5's fp32 one
  for (const auto& node : g.nodes) {
    if (node.attention) {
      EXPECT_EQ(node.attention->window, 0) << "FlexOlmo's attention does not slide";
    }
  }
}
