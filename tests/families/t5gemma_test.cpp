#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Graph;
using neurarch::graph::Node;
using neurarch::graph::Shape;

// A small encoder and a decoder of another width: cross_attn's k/v read the encoder's width.
Config tiny(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "t5gemma", "vocab_size": 100,
    "encoder": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
                "num_key_value_heads": 2, "head_dim": 16, "sliding_window": 8},
    "decoder": {"hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 3, "num_attention_heads": 2,
                "num_key_value_heads": 1, "head_dim": 16, "vocab_size": 7})" + extra + "}",
                       "config.json");
}

Graph build(const Config& c, const std::string& cls, std::optional<std::int64_t> seq = {},
            std::optional<std::int64_t> target = {}) {
  neurarch::model::BuildOptions options;
  options.class_name = cls;
  options.seq = seq;
  options.target_seq = target;
  return neurarch::model::build_model(c, options).graph;
}

const Node* node(const Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

TEST(T5GemmaGraph, CrossAttentionReadsTheEncoderWidthAndLength) {
  auto g = build(tiny(), "T5GemmaForConditionalGeneration", 40, 12);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const Node* cross = node(g, "Decoder_Cross_Attention_2");
  ASSERT_NE(cross, nullptr);
  EXPECT_EQ(cross->attention->query_len, 12);
  EXPECT_EQ(cross->attention->kv_len, 40);
  EXPECT_EQ(cross->attention->kv_heads, 1);
  ASSERT_NE(g.find_tensor("model.decoder.layers.2.cross_attn.k_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.decoder.layers.2.cross_attn.k_proj.weight")->shape, (Shape{16, 64}));
  // The top-level vocab_size wins over the decoder's own (T5GemmaConfig copies it into both).
  EXPECT_EQ(g.find_tensor("model.decoder.embed_tokens.weight")->shape, (Shape{100, 32}));
  EXPECT_EQ(g.nodes.back().out, (Shape{12, 100}));
  // The encoder attends both ways; layer 0 slides (the default layer_types), layer 1 does not.
  EXPECT_FALSE(node(g, "Attention_0")->attention->causal);
  EXPECT_EQ(node(g, "Attention_0")->attention->window, 8);
  EXPECT_EQ(node(g, "Attention_1")->attention->window, 0);
  EXPECT_TRUE(node(g, "Decoder_Attention_0")->attention->causal);
}

TEST(T5GemmaHeads, EncoderOnlyClassificationWithoutADecoder) {
  auto g = build(tiny(R"(, "is_encoder_decoder": false)"), "T5GemmaForSequenceClassification", 20);
  for (const auto& t : g.tensors) EXPECT_EQ(t.name.find("decoder"), std::string::npos) << t.name;
  ASSERT_NE(g.find_tensor("score.out_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("score.out_proj.weight")->shape, (Shape{2, 64}));
  auto untied = build(tiny(R"(, "tie_word_embeddings": false)"), "T5GemmaForConditionalGeneration");
  ASSERT_NE(untied.find_tensor("lm_head.out_proj.weight"), nullptr);
  EXPECT_TRUE(untied.find_tensor("lm_head.out_proj.weight")->saved());
}
