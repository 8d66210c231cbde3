#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Graph;
using neurarch::graph::Shape;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

Graph build(const std::string& extra, const std::string& cls, std::optional<std::int64_t> samples = {}) {
  auto c = Config::parse(R"({"model_type": "wav2vec2", "hidden_size": 32, "num_hidden_layers": 2,
                             "num_attention_heads": 4, "intermediate_size": 64, "num_conv_pos_embeddings": 16,
                             "num_conv_pos_embedding_groups": 4)" + extra + "}",
                         "config.json");
  BuildOptions options;
  options.class_name = cls;
  options.seq = samples;
  return build_model(c, options).graph;
}

}  // namespace

TEST(Wav2Vec2Graph, OneSecondGivesFortyNineFrames) {
  auto g = build("", "Wav2Vec2Model");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "audio");
  EXPECT_EQ(g.input_shape, (Shape{16000}));
  // floor((L - k) / s) + 1 per layer: 16000 -> 3199 -> 1599 -> 799 -> 399 -> 199 -> 99 -> 49.
  std::int64_t frames = 16000;
  const std::int64_t kernels[] = {10, 3, 3, 3, 3, 2, 2}, strides[] = {5, 2, 2, 2, 2, 2, 2};
  for (int i = 0; i < 7; ++i) frames = neurarch::blocks::conv1d_frames(frames, kernels[i], strides[i]);
  EXPECT_EQ(frames, 49);
  EXPECT_EQ(g.nodes.back().out, (Shape{49, 32}));
  EXPECT_EQ(g.find_tensor("encoder.pos_conv_embed.conv.weight_v")->shape, (Shape{32, 8, 16}));
  EXPECT_EQ(g.find_tensor("encoder.pos_conv_embed.conv.weight_g")->shape, (Shape{1, 1, 16}));
  // Two seconds: 99 frames.
  EXPECT_EQ(build("", "Wav2Vec2Model", 32000).nodes.back().out, (Shape{99, 32}));
}

TEST(Wav2Vec2Graph, TooShortAudioCannotRunAndConvListsMustAgree) {
  EXPECT_FALSE(build("", "Wav2Vec2Model", 300).forward.ok);
  EXPECT_THROW(build(R"(, "conv_dim": [512, 512], "conv_kernel": [10], "conv_stride": [5])", "Wav2Vec2Model"),
               neurarch::Error);
}

TEST(Wav2Vec2Graph, LayerNormFeatureEncoderAndStableLayerNorm) {
  auto g = build(R"(, "feat_extract_norm": "layer", "do_stable_layer_norm": true, "conv_bias": true)", "Wav2Vec2ForCTC");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_NE(g.find_tensor("wav2vec2.feature_extractor.conv_layers.6.layer_norm.weight"), nullptr);
  EXPECT_NE(g.find_tensor("wav2vec2.feature_extractor.conv_layers.6.conv.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("lm_head.weight")->shape, (Shape{32, 32}));
  EXPECT_EQ(g.nodes.back().out, (Shape{49, 32}));
}
