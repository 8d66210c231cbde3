#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
  auto c = Config::parse(R"({"model_type": "wav2vec2-bert", "hidden_size": 32, "num_hidden_layers": 2,
                             "num_attention_heads": 4, "intermediate_size": 64, "conv_depthwise_kernel_size": 5,
                             "vocab_size": 40)" + extra + "}",
                         "config.json");
  BuildOptions options;
  options.class_name = cls;
  options.seq = samples;
  return build_model(c, options).graph;
}

const neurarch::graph::Node* node(const Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

TEST(Wav2Vec2BertGraph, OneSecondIsFortyNineStackedFbankFrames) {
  auto g = build("", "Wav2Vec2BertModel");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "audio_features");
  // 16000 samples: 1 + (16000 - 400) / 160 = 98 frames of 80 bins, stacked in pairs.
  EXPECT_EQ(g.input_shape, (Shape{49, 160}));
  EXPECT_EQ(g.nodes.back().out, (Shape{49, 32}));
  // An odd frame count drops the last frame: 1 + (16160 - 400) / 160 = 99 -> 49.
  EXPECT_EQ(build("", "Wav2Vec2BertModel", 16160).input_shape, (Shape{49, 160}));
  EXPECT_FALSE(build("", "Wav2Vec2BertModel", 300).forward.ok);
  // The causal depthwise conv keeps every frame; a LayerNorm replaces the conformer's BatchNorm.
  EXPECT_EQ(node(g, "Depthwise_Conv_0")->out, (Shape{49, 32}));
  EXPECT_NE(g.find_tensor("encoder.layers.0.conv_module.depthwise_layer_norm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("encoder.layers.0.self_attn.distance_embedding.weight")->shape, (Shape{64 + 8 + 1, 8}));
  EXPECT_EQ(g.find_tensor("encoder.layer_norm.weight"), nullptr);
  EXPECT_FALSE(node(g, "Attention_1")->attention->sdpa);
}

TEST(Wav2Vec2BertGraph, AdapterHalvesTheFramesAndFeedsTheCtcHead) {
  auto g = build(R"(, "add_adapter": true, "num_adapter_layers": 2, "output_hidden_size": 16,
                    "use_intermediate_ffn_before_adapter": true)",
                 "Wav2Vec2BertForCTC");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("wav2vec2_bert.intermediate_ffn.intermediate_dense.weight")->shape, (Shape{64, 32}));
  EXPECT_EQ(g.find_tensor("wav2vec2_bert.adapter.proj.weight")->shape, (Shape{16, 32}));
  EXPECT_EQ(g.find_tensor("wav2vec2_bert.adapter.layers.1.residual_conv.weight")->shape, (Shape{32, 16, 3}));
  EXPECT_EQ(g.find_tensor("wav2vec2_bert.adapter.layers.1.self_attn.linear_q.weight")->shape, (Shape{16, 16}));
  EXPECT_EQ(g.find_tensor("wav2vec2_bert.adapter.layers.0.ffn.intermediate_dense.weight")->shape, (Shape{64, 16}));
  // 49 -> floor((49 + 2 - 3) / 2) + 1 = 25 -> 13 frames, then lm_head from output_hidden_size.
  EXPECT_EQ(g.find_tensor("lm_head.weight")->shape, (Shape{40, 16}));
  EXPECT_EQ(g.nodes.back().out, (Shape{13, 40}));
}

TEST(Wav2Vec2BertGraph, CtcNeedsAVocabularyAndClassificationRefusesTheAdapter) {
  auto c = Config::parse(R"({"model_type": "wav2vec2-bert", "vocab_size": null})", "config.json");
  BuildOptions options;
  options.class_name = "Wav2Vec2BertForCTC";
  EXPECT_THROW(build_model(c, options), neurarch::Error);
  EXPECT_THROW(build(R"(, "add_adapter": true)", "Wav2Vec2BertForSequenceClassification"), neurarch::Error);
  auto cls = build("", "Wav2Vec2BertForSequenceClassification");
  EXPECT_EQ(cls.find_tensor("projector.weight")->shape, (Shape{768, 32}));
}
