#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Graph;
using neurarch::graph::Node;
using neurarch::graph::NodeType;
using neurarch::graph::Shape;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

Config tiny(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "t5", "d_model": 64, "d_kv": 16, "d_ff": 128, "num_heads": 4,
                           "num_layers": 2, "num_decoder_layers": 3, "vocab_size": 100)" + extra + "}",
                       "config.json");
}

Graph build(const Config& c, const std::string& cls, std::optional<std::int64_t> seq = {},
            std::optional<std::int64_t> target = {}) {
  BuildOptions options;
  options.class_name = cls;
  options.seq = seq;
  options.target_seq = target;
  return build_model(c, options).graph;
}

const Node* node(const Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

TEST(T5Graph, TwoInputsAndCrossAttentionOverTheEncoderLength) {
  auto g = build(tiny(), "T5ForConditionalGeneration", 200, 30);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.input_shape, (Shape{200}));
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_EQ(g.inputs[1].name, "decoder_input_ids");
  EXPECT_EQ(g.inputs[1].shape, (Shape{30}));

  const Node* cross = node(g, "Decoder_Cross_Attention_2");
  ASSERT_NE(cross, nullptr);
  ASSERT_TRUE(cross->attention);
  EXPECT_EQ(cross->attention->query_len, 30);
  EXPECT_EQ(cross->attention->kv_len, 200);
  EXPECT_FALSE(cross->attention->causal);
  const Node* memory = &g.nodes.at(static_cast<std::size_t>(cross->attention->kv_input));
  EXPECT_EQ(memory->name, "Encoder_Final_RMSNorm");
  EXPECT_EQ(memory->out, (Shape{200, 64}));

  const Node* self = node(g, "Decoder_Attention_1");
  ASSERT_NE(self, nullptr);
  EXPECT_TRUE(self->attention->causal);
  EXPECT_FALSE(self->attention->sdpa);
  EXPECT_EQ(self->attention->kv_len, 30);
  EXPECT_EQ(g.nodes.back().out, (Shape{30, 100}));
  // Decoder blocks number on after the encoder's.
  EXPECT_EQ(self->block, 3);
}

TEST(T5Graph, OnlyBlockZeroOwnsTheBiasAndLaterBlocksReuseIt) {
  auto g = build(tiny(), "T5Model", 40, 12);
  const Node* bias = node(g, "Relative_Position_Bias_0");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->out, (Shape{4, 40, 40}));
  EXPECT_EQ(node(g, "Relative_Position_Bias_1"), nullptr);
  const Node* later = node(g, "Attention_1");
  ASSERT_NE(later, nullptr);
  ASSERT_EQ(later->inputs.size(), 2u);
  EXPECT_EQ(later->inputs[1], bias->index);
  const Node* decoder_bias = node(g, "Decoder_Relative_Position_Bias_0");
  ASSERT_NE(decoder_bias, nullptr);
  EXPECT_EQ(decoder_bias->out, (Shape{4, 12, 12}));
}

TEST(T5Config, GatedGeluAndSavedActivationOverride) {
  auto g = build(tiny(R"(, "feed_forward_proj": "gated-gelu")"), "T5Model");
  ASSERT_NE(g.find_tensor("encoder.block.0.layer.1.DenseReluDense.wi_0.weight"), nullptr);
  ASSERT_NE(g.find_tensor("decoder.block.2.layer.2.DenseReluDense.wi_1.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("encoder.block.0.layer.1.DenseReluDense.wi.weight"), nullptr);
  const Node* ffn = node(g, "FFN_0");
  ASSERT_NE(ffn, nullptr);
  EXPECT_EQ(ffn->feed_forward->activation, "gelu_new");
  EXPECT_TRUE(ffn->feed_forward->gated);
  EXPECT_DOUBLE_EQ(ffn->feed_forward->inner_dropout, 0.1);

  // A dense_act_fn written in config.json wins over the one feed_forward_proj implies.
  auto h = build(tiny(R"(, "feed_forward_proj": "gated-gelu", "dense_act_fn": "gelu")"), "T5Model");
  EXPECT_EQ(node(h, "FFN_0")->feed_forward->activation, "gelu");
}

TEST(T5Heads, TiedHeadIsAnAliasAndUntiedHeadIsStored) {
  auto tied = build(tiny(), "T5ForConditionalGeneration");
  const auto* head = tied.find_tensor("lm_head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_FALSE(head->saved());
  EXPECT_EQ(head->tied_to, "shared.weight");
  auto untied = build(tiny(R"(, "tie_word_embeddings": false)"), "T5ForConditionalGeneration");
  ASSERT_NE(untied.find_tensor("lm_head.weight"), nullptr);
  EXPECT_TRUE(untied.find_tensor("lm_head.weight")->saved());
  EXPECT_EQ(untied.saved_scalars() - tied.saved_scalars(), 100 * 64);
}

TEST(T5Heads, EncoderModelHasNoDecoder) {
  auto g = build(tiny(), "T5EncoderModel", 50);
  EXPECT_EQ(g.inputs.size(), 1u);
  for (const auto& t : g.tensors) EXPECT_EQ(t.name.rfind("decoder.", 0), std::string::npos) << t.name;
  EXPECT_EQ(g.nodes.back().out, (Shape{50, 64}));
}

TEST(T5Heads, SequenceClassificationDecodesTheShiftedSource) {
  auto g = build(tiny(), "T5ForSequenceClassification", 64, 16);
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[1].shape, (Shape{64}));
  EXPECT_FALSE(g.notes.empty());
  EXPECT_EQ(g.nodes.back().out, (Shape{2}));
}

TEST(T5Options, TargetLengthMustBePositive) {
  EXPECT_THROW(build(tiny(), "T5Model", 10, 0), neurarch::Error);
}
