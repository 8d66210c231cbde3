#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Graph;
using neurarch::graph::Shape;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

Graph build(const std::string& type, const std::string& extra, const std::string& cls) {
  auto c = Config::parse(R"({"model_type": ")" + type + R"(", "hidden_size": 32, "num_hidden_layers": 2,
                             "num_attention_heads": 4, "intermediate_size": 64, "num_conv_pos_embeddings": 16,
                             "num_conv_pos_embedding_groups": 4)" + extra + "}",
                         "config.json");
  BuildOptions options;
  options.class_name = cls;
  return build_model(c, options).graph;
}

const neurarch::graph::Node* node(const Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

TEST(SEWGraph, SqueezesTheFramesAndUpsamplesBack) {
  // Thirteen default convs: 16000 samples -> 49 frames of 512 channels, projected to 32.
  auto g = build("sew", "", "SEWForCTC");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("sew.feature_extractor.conv_layers.12.conv.weight")->shape, (Shape{512, 512, 1}));
  EXPECT_EQ(g.find_tensor("sew.feature_projection.weight")->shape, (Shape{32, 512}));
  // Pool: 49 / 2 = 24; positional conv k 16 stride 2 pad 8: (49 + 16 - 16) / 2 + 1 = 25, trimmed to 24.
  EXPECT_EQ(node(g, "Attention_0")->out, (Shape{24, 32}));
  EXPECT_EQ(g.find_tensor("sew.encoder.upsample.projection.weight")->shape, (Shape{64, 32}));
  // 24 x 2 = 48 frames, padded to the 49 the encoder received.
  EXPECT_EQ(node(g, "Upsample_Unfold")->out, (Shape{49, 32}));
  EXPECT_EQ(g.nodes.back().out, (Shape{49, 32}));
}

TEST(SEWGraph, NoProjectionWhenTheConvsEndAtHiddenSize) {
  auto g = build("sew", R"(, "conv_dim": [32, 32], "conv_kernel": [10, 3], "conv_stride": [5, 2])", "SEWModel");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("feature_projection.weight"), nullptr);
  EXPECT_NE(g.find_tensor("layer_norm.weight"), nullptr);
}

TEST(SEWDGraph, DebertaLayersRunOnTheSqueezedFrames) {
  auto g = build("sew-d", R"(, "position_buckets": 8)", "SEWDModel");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("encoder.encoder.rel_embeddings.weight")->shape, (Shape{16, 32}));
  EXPECT_NE(g.find_tensor("encoder.encoder.LayerNorm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("encoder.layer_norm.weight"), nullptr);
  const auto* attention = node(g, "Attention_1");
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->out, (Shape{24, 32}));
  EXPECT_TRUE(attention->attention->c2p && attention->attention->p2c);
  EXPECT_EQ(g.nodes.back().out, (Shape{49, 32}));
}
