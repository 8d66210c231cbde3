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
  return Config::parse(R"({"model_type": "nllb-moe", "d_model": 32, "encoder_layers": 4, "decoder_layers": 2,
                           "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64,
                           "decoder_ffn_dim": 64, "vocab_size": 100, "num_experts": 4,
                           "encoder_sparse_step": 2, "decoder_sparse_step": 1)" + extra + "}",
                       "config.json");
}

}  // namespace

TEST(NllbMoeGraph, EveryStepthLayerRoutesToTwoExperts) {
  auto g = build_graph(tiny(), "NllbMoeModel", 24, 8);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  std::vector<std::string> sparse;
  for (const auto& n : g.nodes)
    if (n.type == NodeType::MixtureOfExperts) {
      sparse.push_back(n.name);
      EXPECT_EQ(n.moe->top_k, 2);
    }
  // (i + 1) % 2 == 0 in the encoder: layers 1 and 3; step 1 in the decoder: every layer.
  EXPECT_EQ(sparse, (std::vector<std::string>{"MoE_1", "MoE_3", "Decoder_MoE_0", "Decoder_MoE_1"}));
  EXPECT_EQ(g.find_tensor("encoder.layers.3.ffn.experts.expert_2.fc1.bias")->shape, (Shape{64}));
  EXPECT_EQ(g.find_tensor("encoder.layers.3.ffn.router.classifier.weight")->shape, (Shape{4, 32}));
  EXPECT_NE(g.find_tensor("encoder.layers.0.ffn.fc1.weight"), nullptr);
  EXPECT_NE(g.find_tensor("decoder.layers.1.cross_attention_layer_norm.weight"), nullptr);
  EXPECT_NE(g.find_tensor("decoder.layers.1.ff_layer_norm.bias"), nullptr);
  // Two of four experts per token: half the routed weights are active.
  const std::int64_t routed = 4 * 4 * (64 * 32 + 64 + 32 * 64 + 32);
  EXPECT_EQ(g.parameter_count() - g.active_parameter_count(), routed / 2);
}

TEST(NllbMoeGraph, PositionsAreAnUnsavedBufferAndTheHeadIsTied) {
  auto g = build_graph(tiny(), "NllbMoeForConditionalGeneration", 24, 8);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.encoder.embed_positions.weights"), nullptr);
  EXPECT_EQ(g.find_tensor("final_logits_bias"), nullptr);
  EXPECT_EQ(g.find_tensor("lm_head.weight")->tied_to, "model.shared.weight");
}
