#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Graph;
using neurarch::graph::NodeType;
using neurarch::graph::Shape;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

Graph build(const std::string& extra) {
  auto c = Config::parse(R"({"model_type": "wavlm", "hidden_size": 32, "num_hidden_layers": 3,
                             "num_attention_heads": 4, "intermediate_size": 64, "num_conv_pos_embeddings": 16,
                             "num_conv_pos_embedding_groups": 4, "num_buckets": 40)" + extra + "}",
                         "config.json");
  BuildOptions options;
  options.class_name = "WavLMModel";
  return build_model(c, options).graph;
}

}  // namespace

TEST(WavLMGraph, OneBucketTableGatedInEveryLayer) {
  for (const std::string extra : {"", R"(, "do_stable_layer_norm": true)"}) {
    auto g = build(extra);
    ASSERT_TRUE(g.forward.ok) << g.forward.reason;
    EXPECT_EQ(g.find_tensor("encoder.layers.0.attention.rel_attn_embed.weight")->shape, (Shape{40, 4}));
    EXPECT_EQ(g.find_tensor("encoder.layers.1.attention.rel_attn_embed.weight"), nullptr);
    EXPECT_EQ(g.find_tensor("encoder.layers.2.attention.gru_rel_pos_linear.weight")->shape, (Shape{8, 8}));
    EXPECT_EQ(g.find_tensor("encoder.layers.2.attention.gru_rel_pos_const")->shape, (Shape{1, 4, 1, 1}));
    int bias = -1, attentions = 0;
    for (const auto& n : g.nodes) {
      if (n.type == NodeType::RelativePositionBias) {
        bias = n.index;
        EXPECT_EQ(n.out, (Shape{4, 49, 49}));
      }
      if (n.attention) {
        ++attentions;
        ASSERT_EQ(n.inputs.size(), 2u) << n.name;
        EXPECT_EQ(n.inputs[1], bias);
      }
    }
    EXPECT_EQ(attentions, 3);
    EXPECT_EQ(g.nodes.back().out, (Shape{49, 32}));
  }
}
