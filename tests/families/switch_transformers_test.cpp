#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "support/family_graph.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Graph;
using neurarch::graph::NodeType;
using neurarch::graph::Shape;
using neurarch::testing::build_graph;

Config tiny(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "switch_transformers", "d_model": 32, "d_kv": 8, "d_ff": 64,
                           "num_heads": 4, "num_layers": 4, "num_decoder_layers": 4, "vocab_size": 100,
                           "num_experts": 4)" + extra + "}",
                       "config.json");
}

std::vector<std::string> moe_nodes(const Graph& g) {
  std::vector<std::string> out;
  for (const auto& n : g.nodes)
    if (n.type == NodeType::MixtureOfExperts) out.push_back(n.name);
  return out;
}

}  // namespace

TEST(SwitchTransformersGraph, StepFromSparseLayerCountsPicksOddLayers) {
  // num_sparse_*_layers 2 of 4 layers: step 2, so layers 1 and 3 (i % 2 == 1) are sparse.
  auto g = build_graph(tiny(R"(, "num_sparse_encoder_layers": 2, "num_sparse_decoder_layers": 2)"), "SwitchTransformersModel", 16, 8);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(moe_nodes(g), (std::vector<std::string>{"MoE_1", "MoE_3", "Decoder_MoE_1", "Decoder_MoE_3"}));
  ASSERT_NE(g.find_tensor("encoder.block.1.layer.1.mlp.router.classifier.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("encoder.block.1.layer.1.mlp.experts.expert_3.wi.weight")->shape, (Shape{64, 32}));
  EXPECT_EQ(g.find_tensor("decoder.block.3.layer.2.mlp.experts.expert_0.wo.weight")->shape, (Shape{32, 64}));
  EXPECT_NE(g.find_tensor("encoder.block.0.layer.1.mlp.wi.weight"), nullptr);
  for (const auto& n : g.nodes)
    if (n.moe) {
      EXPECT_EQ(n.moe->top_k, 1);
      EXPECT_FALSE(n.moe->gated);
    }
  // Top-1 of 4 experts: each token runs through a quarter of the routed weights.
  EXPECT_TRUE(g.has_experts());
  const std::int64_t routed = 4 * (4 * 2 * 64 * 32);  // 4 sparse layers x 4 experts x (wi + wo)
  EXPECT_EQ(g.parameter_count() - g.active_parameter_count(), routed * 3 / 4);
}

TEST(SwitchTransformersConfig, SavedStepWinsAndStepOneMakesEveryLayerSparse) {
  auto g = build_graph(tiny(R"(, "encoder_sparse_step": 1, "num_sparse_decoder_layers": 0)"), "SwitchTransformersModel", 16, 8);
  EXPECT_EQ(moe_nodes(g), (std::vector<std::string>{"MoE_0", "MoE_1", "MoE_2", "MoE_3"}));
}

TEST(SwitchTransformersConfig, FeedForwardIsNeverGatedAndRouterBiasIsRead) {
  auto g = build_graph(tiny(R"(, "feed_forward_proj": "gated-gelu", "dense_act_fn": "gelu", "router_bias": true,
                          "num_sparse_encoder_layers": 2)"), "SwitchTransformersModel", 16, 8);
  EXPECT_EQ(g.find_tensor("encoder.block.0.layer.1.mlp.wi_0.weight"), nullptr);
  EXPECT_NE(g.find_tensor("encoder.block.0.layer.1.mlp.wi.weight"), nullptr);
  EXPECT_NE(g.find_tensor("encoder.block.1.layer.1.mlp.router.classifier.bias"), nullptr);
}

TEST(SwitchTransformersHeads, TiedLmHeadAndEncoderModel) {
  auto lm = build_graph(tiny(), "SwitchTransformersForConditionalGeneration", 16, 8);
  ASSERT_NE(lm.find_tensor("lm_head.weight"), nullptr);
  EXPECT_EQ(lm.find_tensor("lm_head.weight")->tied_to, "shared.weight");
  auto enc = build_graph(tiny(), "SwitchTransformersEncoderModel", 16, 8);
  EXPECT_EQ(enc.inputs.size(), 1u);
}
