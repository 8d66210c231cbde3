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

Config tiny() {
  return Config::parse(R"({"model_type": "whisper", "d_model": 32, "encoder_layers": 1, "decoder_layers": 1,
                           "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64,
                           "decoder_ffn_dim": 64, "vocab_size": 100, "num_mel_bins": 16,
                           "max_source_positions": 50, "max_target_positions": 20})",
                       "config.json");
}

Graph build(const std::string& cls, std::optional<std::int64_t> seq = {}, std::optional<std::int64_t> target = {}) {
  BuildOptions options;
  options.class_name = cls;
  options.seq = seq;
  options.target_seq = target;
  return build_model(tiny(), options).graph;
}

}  // namespace

TEST(WhisperGraph, MelFramesHalveThroughTheStridedConvolution) {
  auto g = build("WhisperForConditionalGeneration");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "audio_features");
  EXPECT_EQ(g.input_shape, (Shape{16, 100}));  // 2 x max_source_positions frames
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[1].shape, (Shape{20}));  // max_target_positions by default
  for (const auto& n : g.nodes) {
    if (n.name == "Conv1") {
      EXPECT_EQ(n.out, (Shape{100, 32}));
    }
    if (n.name == "Conv2") {
      EXPECT_EQ(n.out, (Shape{50, 32}));
      ASSERT_TRUE(n.conv);
      EXPECT_EQ(n.conv->stride, 2);
    }
    if (n.name == "Decoder_Cross_Attention_0") {
      EXPECT_EQ(n.attention->kv_len, 50);
    }
  }
  EXPECT_EQ(g.find_tensor("model.encoder.conv2.weight")->shape, (Shape{32, 32, 3}));
  EXPECT_EQ(g.find_tensor("model.encoder.layers.0.self_attn.k_proj.bias"), nullptr);
  EXPECT_NE(g.find_tensor("model.encoder.layers.0.self_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("proj_out.weight")->tied_to, "model.decoder.embed_tokens.weight");
}

TEST(WhisperGraph, OtherFrameCountsAndLongTargetsCannotRun) {
  EXPECT_FALSE(build("WhisperModel", 80).forward.ok);
  EXPECT_TRUE(build("WhisperModel", 100, 20).forward.ok);
  auto g = build("WhisperModel", 100, 21);
  ASSERT_FALSE(g.forward.ok);
  EXPECT_EQ(g.nodes.at(static_cast<std::size_t>(g.forward.node)).name, "Decoder_Position_Embedding");
}

TEST(WhisperGraph, EncoderSinusoidIsFrozenLikeTheReference) {
  // WhisperEncoder calls embed_positions.requires_grad_(False); the decoder's learned table trains.
  auto g = build("WhisperForConditionalGeneration");
  EXPECT_TRUE(g.find_tensor("model.encoder.embed_positions.weight")->frozen);
  EXPECT_FALSE(g.find_tensor("model.decoder.embed_positions.weight")->frozen);
  EXPECT_FALSE(g.find_tensor("model.encoder.conv1.weight")->frozen);
  EXPECT_EQ(g.frozen_parameter_count(), 50 * 32);
}
