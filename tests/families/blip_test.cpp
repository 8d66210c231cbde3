#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

model::BuiltModel build(nlohmann::json config, const std::string& cls = "", std::optional<std::int64_t> seq = {},
                        std::optional<std::int64_t> size = {}, std::optional<std::int64_t> target = {}) {
  model::BuildOptions options;
  options.class_name = cls;
  options.seq = seq;
  options.image_size = size;
  options.target_seq = target;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

int count(const graph::Graph& g, const std::string& prefix) {
  int k = 0;
  for (const auto& n : g.nodes)
    if (n.name.starts_with(prefix)) ++k;
  return k;
}

const nlohmann::json kBlip = {{"model_type", "blip"}};

TEST(BlipFamily, CaptionerDecodesCausallyAgainstEveryImageToken) {
  auto m = build(kBlip, "BlipForConditionalGeneration", 20);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.input_kind, "pixels");  // main_input_name = pixel_values
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 384, 384}));
  EXPECT_EQ(g.inputs[1].name, "input_ids");
  EXPECT_EQ(g.inputs[1].shape, (graph::Shape{20}));
  const auto& self = node(g, "Decoder_Attention_0");
  EXPECT_TRUE(self.attention->causal);
  EXPECT_FALSE(self.attention->sdpa);  // BLIP's text attention is eager only
  const auto& cross = node(g, "Decoder_Cross_Attention_11");
  EXPECT_EQ(cross.attention->query_len, 20);
  EXPECT_EQ(cross.attention->kv_len, 577);  // (384 / 16)^2 patches and the class token
  EXPECT_EQ(cross.attention->kv_input, node(g, "Vision_Post_LayerNorm").index);
  EXPECT_FALSE(node(g, "Vision_Attention_0").attention->sdpa);
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{20, 30524}));
  // The decoder's weight is its own; only its bias aliases cls.predictions.bias.
  EXPECT_TRUE(g.find_tensor("text_decoder.cls.predictions.decoder.weight")->saved());
  EXPECT_FALSE(g.find_tensor("text_decoder.cls.predictions.decoder.bias")->saved());
}

TEST(BlipFamily, ContrastiveTextModelStoresButSkipsCrossAttention) {
  auto m = build(kBlip, "BlipModel", 35);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_EQ(count(g, "Text_Cross_Attention"), 0);
  EXPECT_FALSE(node(g, "Text_Attention_0").attention->causal);
  ASSERT_NE(g.find_tensor("text_model.encoder.layer.0.crossattention.self.key.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("logit_scale")->shape, graph::Shape{});
  EXPECT_EQ(g.nodes.back().inputs.size(), 1u);
  EXPECT_EQ(node(g, "Contrastive_Logits").inputs.size(), 2u);
}

TEST(BlipFamily, QuestionAnsweringEncodesThenDecodesAgainstTheQuestion) {
  auto m = build(kBlip, "BlipForQuestionAnswering", 12, {}, 5);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  ASSERT_EQ(g.inputs.size(), 3u);
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_EQ(g.input_shape, (graph::Shape{12}));
  EXPECT_EQ(g.inputs[2].name, "decoder_input_ids");
  EXPECT_EQ(g.inputs[2].shape, (graph::Shape{5}));
  EXPECT_EQ(node(g, "Text_Cross_Attention_0").attention->kv_len, 577);
  EXPECT_FALSE(node(g, "Text_Attention_0").attention->causal);
  const auto& answer = node(g, "Decoder_Cross_Attention_0");
  EXPECT_EQ(answer.attention->query_len, 5);
  EXPECT_EQ(answer.attention->kv_len, 12);
  EXPECT_EQ(g.find_tensor("text_encoder.pooler.dense.weight"), nullptr);  // add_pooling_layer=False
  EXPECT_NE(g.find_tensor("text_decoder.bert.encoder.layer.0.crossattention.self.key.weight"), nullptr);
}

TEST(BlipFamily, RetrievalScoresTheCrossAttendingFirstToken) {
  auto m = build(kBlip, "BlipForImageTextRetrieval", 35);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{2}));
  EXPECT_EQ(g.find_tensor("itm_head.weight")->shape, (graph::Shape{2, 768}));
  EXPECT_EQ(g.find_tensor("vision_proj.weight")->shape, (graph::Shape{256, 768}));
  EXPECT_EQ(g.find_tensor("text_proj.weight")->shape, (graph::Shape{256, 768}));
  // 86.2M vision + 137.3M text encoder (with cross-attention) + projections and head.
  EXPECT_EQ(node(g, "Text_Cross_Attention_11").attention->kv_len, 577);
}

TEST(BlipFamily, EncoderWidthMustMatchTheImageTokens) {
  auto m = build({{"model_type", "blip"}, {"vision_config", {{"hidden_size", 1024}, {"num_attention_heads", 16}}}},
                 "BlipForConditionalGeneration", 16);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("encoder states of width 768, receives 1024"));
  auto fixed = build({{"model_type", "blip"},
                      {"vision_config", {{"hidden_size", 1024}, {"num_attention_heads", 16}}},
                      {"text_config", {{"encoder_hidden_size", 1024}}}},
                     "BlipForConditionalGeneration", 16);
  EXPECT_TRUE(fixed.graph.forward.ok) << fixed.graph.forward.reason;
  EXPECT_EQ(fixed.graph.find_tensor("text_decoder.bert.encoder.layer.0.crossattention.self.value.weight")->shape,
            (graph::Shape{768, 1024}));
}

TEST(BlipFamily, PositionsAreSlicedNotInterpolated) {
  auto small = build(kBlip, "BlipModel", 16, 224);
  EXPECT_TRUE(small.graph.forward.ok) << small.graph.forward.reason;
  EXPECT_EQ(node(small.graph, "Vision_Post_LayerNorm").out, (graph::Shape{197, 768}));
  ASSERT_FALSE(small.graph.notes.empty());
  auto large = build(kBlip, "BlipModel", 16, 480);
  EXPECT_FALSE(large.graph.forward.ok);
  EXPECT_THAT(large.graph.forward.reason, HasSubstr("interpolate_pos_encoding=True"));
}

TEST(BlipFamily, DecoderOnlyWhenIsDecoderSaysSo) {
  // is_decoder=false: no crossattention modules anywhere, so nothing can attend to the image.
  auto m = build({{"model_type", "blip"}, {"text_config", {{"is_decoder", false}}}}, "BlipModel", 16);
  EXPECT_EQ(m.graph.find_tensor("text_model.encoder.layer.0.crossattention.self.key.weight"), nullptr);
}

}  // namespace
}  // namespace neurarch
