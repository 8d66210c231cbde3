#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

neurarch::graph::Graph build(const std::string& extra, std::int64_t frames) {
  auto c = neurarch::Config::parse(R"({"model_type": "speech_to_text", "d_model": 32, "encoder_layers": 1,
    "decoder_layers": 1, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 64,
    "decoder_ffn_dim": 64, "vocab_size": 50, "conv_channels": 48)" + extra + "}",
                                   "config.json");
  neurarch::model::BuildOptions options;
  options.class_name = "Speech2TextForConditionalGeneration";
  options.seq = frames;
  options.target_seq = 10;
  return neurarch::model::build_model(c, options).graph;
}

}  // namespace

TEST(SpeechToTextGraph, TwoStrideTwoConvolutionsWithGluQuarterTheFrames) {
  auto g = build("", 1000);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_shape, (neurarch::graph::Shape{1000, 80}));
  const neurarch::graph::Node* conv0 = nullptr;
  const neurarch::graph::Node* conv1 = nullptr;
  for (const auto& n : g.nodes) {
    if (n.name == "Conv_Subsampler_0") conv0 = &n;
    if (n.name == "Conv_Subsampler_1") conv1 = &n;
  }
  ASSERT_NE(conv0, nullptr);
  ASSERT_NE(conv1, nullptr);
  // (1000 + 2*2 - 5) / 2 + 1 = 500 frames, the GLU halves 48 channels to 24.
  EXPECT_EQ(conv0->out, (neurarch::graph::Shape{500, 24}));
  EXPECT_EQ(conv1->out, (neurarch::graph::Shape{250, 32}));
  EXPECT_EQ(g.find_tensor("model.encoder.conv.conv_layers.1.weight")->shape, (neurarch::graph::Shape{64, 24, 5}));
  EXPECT_TRUE(g.find_tensor("model.encoder.embed_positions.weights")->frozen);
  EXPECT_EQ(g.nodes.back().out, (neurarch::graph::Shape{10, 50}));
}

TEST(SpeechToTextConfig, KernelListMustMatchTheConvolutionCount) {
  EXPECT_THROW(build(R"(, "num_conv_layers": 3)", 100), std::exception);
}
