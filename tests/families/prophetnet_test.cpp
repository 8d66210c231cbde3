#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

neurarch::graph::Graph build(const std::string& cls, const std::string& extra = "") {
  auto c = neurarch::Config::parse(R"({"model_type": "prophetnet", "hidden_size": 32, "num_encoder_layers": 1,
    "num_decoder_layers": 2, "num_encoder_attention_heads": 2, "num_decoder_attention_heads": 4,
    "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "vocab_size": 50, "ngram": 3, "num_buckets": 8)" + extra + "}",
                                   "config.json");
  neurarch::model::BuildOptions options;
  options.class_name = cls;
  options.seq = 20;
  options.target_seq = 6;
  return neurarch::model::build_model(c, options).graph;
}

const neurarch::graph::Node* node(const neurarch::graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

TEST(ProphetNetGraph, DecoderLayersRunTheMainAndEveryPredictingStream) {
  auto g = build("ProphetNetForConditionalGeneration");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto* attn = node(g, "Decoder_Attention_1");
  ASSERT_NE(attn, nullptr);
  EXPECT_EQ(attn->out, (neurarch::graph::Shape{4 * 6, 32}));
  EXPECT_EQ(attn->attention->kv_len, 12);
  EXPECT_EQ(g.find_tensor("prophetnet.decoder.layers.1.self_attn.relative_pos_embeddings.weight")->shape,
            (neurarch::graph::Shape{8 * 4, 32}));
  const auto* cross = node(g, "Decoder_Cross_Attention_0");
  ASSERT_NE(cross, nullptr);
  EXPECT_EQ(cross->attention->kv_len, 20);
  // The LM head reads the three predicting streams only.
  EXPECT_EQ(g.nodes.back().out, (neurarch::graph::Shape{3 * 6, 50}));
  EXPECT_EQ(build("ProphetNetModel").nodes.back().out, (neurarch::graph::Shape{6, 32}));
}

TEST(ProphetNetConfig, CrossAttentionFollowsAddCrossAttention) {
  auto g = build("ProphetNetModel", R"(, "add_cross_attention": false)");
  EXPECT_EQ(g.find_tensor("decoder.layers.0.cross_attn.key_proj.weight"), nullptr);
  auto causal = build("ProphetNetForCausalLM");
  ASSERT_NE(causal.find_tensor("prophetnet.decoder.layers.0.cross_attn.key_proj.weight"), nullptr);
  EXPECT_FALSE(causal.notes.empty());
}
