#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

neurarch::graph::Graph build(const std::string& type, const std::string& cls, const std::string& extra,
                             std::int64_t seq) {
  auto c = neurarch::Config::parse(R"({"model_type": ")" + type + R"(", "d_model": 32, "encoder_layers": 2,
    "decoder_layers": 1, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 64,
    "decoder_ffn_dim": 64, "vocab_size": 50)" + extra + "}",
                                   "config.json");
  neurarch::model::BuildOptions options;
  options.class_name = cls;
  options.seq = seq;
  options.target_seq = 8;
  return neurarch::model::build_model(c, options).graph;
}

const neurarch::graph::Node* node(const neurarch::graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

TEST(PegasusXGraph, EncoderBlocksScoreTheirBlockAndTheGlobalTokens) {
  auto g = build("pegasus_x", "PegasusXModel", R"(, "block_size": 16, "num_global_tokens": 4)", 100);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto* attn = node(g, "Attention_1");
  ASSERT_NE(attn, nullptr);
  EXPECT_EQ(attn->attention->query_len, 16);
  EXPECT_EQ(attn->attention->kv_len, 16 + 4);
  EXPECT_FALSE(attn->attention->sdpa);
  EXPECT_EQ(g.find_tensor("encoder.embed_global.weight")->shape, (neurarch::graph::Shape{4, 32}));
  EXPECT_EQ(g.find_tensor("encoder.layers.0.self_attn.q_proj.bias"), nullptr);
  // 100 tokens are padded to 112 by the reference: a note says so.
  bool padding_noted = false;
  for (const auto& n : g.notes) padding_noted = padding_noted || n.find("112") != std::string::npos;
  EXPECT_TRUE(padding_noted);
}
