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
  auto c = Config::parse(R"({"model_type": "wav2vec2-conformer", "hidden_size": 32, "num_hidden_layers": 2,
                             "num_attention_heads": 4, "intermediate_size": 64, "num_conv_pos_embeddings": 16,
                             "num_conv_pos_embedding_groups": 4, "conv_depthwise_kernel_size": 7)" + extra + "}",
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

TEST(Wav2Vec2ConformerGraph, RelativePositionsAreEagerAndSpanTwiceTheFrames) {
  auto g = build("", "Wav2Vec2ConformerModel");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.nodes.back().out, (Shape{49, 32}));
  EXPECT_EQ(g.find_tensor("encoder.layers.1.self_attn.linear_pos.weight")->shape, (Shape{32, 32}));
  EXPECT_EQ(g.find_tensor("encoder.layers.1.self_attn.pos_bias_u")->shape, (Shape{4, 8}));
  EXPECT_EQ(g.find_tensor("encoder.layers.0.conv_module.pointwise_conv1.weight")->shape, (Shape{64, 32, 1}));
  EXPECT_EQ(g.find_tensor("encoder.layers.0.conv_module.depthwise_conv.weight")->shape, (Shape{32, 1, 7}));
  EXPECT_EQ(g.find_tensor("encoder.layers.0.conv_module.batch_norm.running_mean")->kind,
            neurarch::graph::TensorKind::Buffer);
  const auto* attention = node(g, "Attention_0");
  ASSERT_NE(attention, nullptr);
  EXPECT_FALSE(attention->attention->sdpa);
  EXPECT_EQ(attention->attention->relative_span, 2 * 49 - 1);
  // The depthwise conv pads (k - 1) / 2 each side: the frames stay.
  EXPECT_EQ(node(g, "Depthwise_Conv_1")->out, (Shape{49, 32}));
  // pos_conv_embed is declared but not on the data path.
  EXPECT_NE(g.find_tensor("encoder.pos_conv_embed.conv.weight_v"), nullptr);
  EXPECT_TRUE(node(g, "Positional_Conv (unused)")->inputs.empty());
  EXPECT_FALSE(g.notes.empty());
}

TEST(Wav2Vec2ConformerGraph, RotaryKeepsInvFreqAndNullHasNoPositionTensors) {
  auto rotary = build(R"(, "position_embeddings_type": "rotary", "vocab_size": 32)", "Wav2Vec2ConformerForCTC");
  ASSERT_TRUE(rotary.forward.ok) << rotary.forward.reason;
  EXPECT_EQ(rotary.find_tensor("wav2vec2_conformer.encoder.embed_positions.inv_freq")->shape, (Shape{4}));
  EXPECT_EQ(rotary.find_tensor("wav2vec2_conformer.encoder.layers.0.self_attn.linear_pos.weight"), nullptr);
  EXPECT_TRUE(node(rotary, "Attention_0")->attention->rotary);
  EXPECT_EQ(rotary.find_tensor("lm_head.weight")->shape, (Shape{32, 32}));

  auto none = build(R"(, "position_embeddings_type": null)", "Wav2Vec2ConformerModel");
  EXPECT_EQ(none.find_tensor("encoder.embed_positions.inv_freq"), nullptr);
  EXPECT_EQ(none.find_tensor("encoder.layers.0.self_attn.pos_bias_v"), nullptr);
  EXPECT_EQ(node(none, "Attention_0")->attention->relative_span, 0);
}

TEST(Wav2Vec2ConformerGraph, BadPositionTypeAndEvenDepthwiseKernelAreRefused) {
  EXPECT_THROW(build(R"(, "position_embeddings_type": "alibi")", "Wav2Vec2ConformerModel"), neurarch::Error);
  EXPECT_THROW(build(R"(, "conv_depthwise_kernel_size": 8)", "Wav2Vec2ConformerModel"), neurarch::Error);
  // vocab_size defaults to None, which Wav2Vec2ConformerForCTC refuses.
  EXPECT_THROW(build("", "Wav2Vec2ConformerForCTC"), neurarch::Error);
}

TEST(Wav2Vec2ConformerGraph, AdapterShortensTheFramesBeforeTheCtcHead) {
  auto g = build(R"(, "add_adapter": true, "output_hidden_size": 16, "num_adapter_layers": 2, "vocab_size": 32)",
                 "Wav2Vec2ConformerForCTC");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("wav2vec2_conformer.adapter.proj.weight")->shape, (Shape{16, 32}));
  EXPECT_NE(g.find_tensor("wav2vec2_conformer.adapter.proj_layer_norm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("wav2vec2_conformer.adapter.layers.1.conv.weight")->shape, (Shape{32, 16, 3}));
  EXPECT_EQ(g.find_tensor("wav2vec2_conformer.adapter.layers.2.conv.weight"), nullptr);
  // 49 -> floor((49 + 2 - 3) / 2) + 1 = 25 -> 13 frames; lm_head reads output_hidden_size.
  EXPECT_EQ(g.find_tensor("lm_head.weight")->shape, (Shape{32, 16}));
  EXPECT_EQ(g.nodes.back().out, (Shape{13, 32}));
  EXPECT_THROW(build(R"(, "add_adapter": true)", "Wav2Vec2ConformerForSequenceClassification"), neurarch::Error);
}
