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

TEST(BigBirdPegasusGraph, LongInputsRunBlockSparseAndShortOnesFull) {
  const std::string blocks = R"(, "block_size": 8, "num_random_blocks": 1, "max_position_embeddings": 512)";
  auto long_input = build("bigbird_pegasus", "BigBirdPegasusModel", blocks, 200);
  const auto* attn = node(long_input, "Attention_0");
  ASSERT_NE(attn, nullptr);
  EXPECT_EQ(attn->attention->query_len, 8);
  EXPECT_EQ(attn->attention->kv_len, (5 + 1) * 8);
  ASSERT_NE(long_input.find_tensor("encoder.layers.0.self_attn.self.query.weight"), nullptr);
  EXPECT_EQ(long_input.find_tensor("encoder.layers.0.self_attn.self.query.bias"), nullptr);
  auto short_input = build("bigbird_pegasus", "BigBirdPegasusModel", blocks, 40);
  EXPECT_EQ(node(short_input, "Attention_0")->attention->kv_len, 40);
  auto biased = build("bigbird_pegasus", "BigBirdPegasusModel", blocks + R"(, "use_bias": true)", 40);
  EXPECT_NE(biased.find_tensor("decoder.layers.0.encoder_attn.k_proj.bias"), nullptr);
}
