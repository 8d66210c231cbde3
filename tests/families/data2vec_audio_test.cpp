#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

TEST(Data2VecAudioGraph, StackedPositionalConvsKeepTheFrames) {
  auto c = neurarch::Config::parse(R"({"model_type": "data2vec-audio", "hidden_size": 32, "num_hidden_layers": 2,
                                      "num_attention_heads": 4, "intermediate_size": 64, "conv_pos_kernel_size": 4,
                                      "num_conv_pos_embeddings": 3, "num_conv_pos_embedding_groups": 4})",
                                   "config.json");
  neurarch::model::BuildOptions options;
  options.class_name = "Data2VecAudioForCTC";
  auto g = neurarch::model::build_model(c, options).graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("data2vec_audio.encoder.pos_conv_embed.layers.2.conv.weight")->shape,
            (neurarch::graph::Shape{32, 8, 4}));
  EXPECT_EQ(g.find_tensor("data2vec_audio.encoder.pos_conv_embed.layers.3.conv.weight"), nullptr);
  // Every feature conv has a LayerNorm whatever feat_extract_norm says.
  EXPECT_NE(g.find_tensor("data2vec_audio.feature_extractor.conv_layers.6.layer_norm.weight"), nullptr);
  EXPECT_EQ(g.nodes.back().out, (neurarch::graph::Shape{49, 32}));
}
