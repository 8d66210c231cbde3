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

}  // namespace

TEST(FsmtGraph, TheDecoderEndsInTargetLogitsInEveryClass) {
  auto g = build("fsmt", "FSMTModel", R"(, "src_vocab_size": 40, "tgt_vocab_size": 30)", 20);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.nodes.back().out, (neurarch::graph::Shape{8, 30}));
  EXPECT_EQ(g.find_tensor("encoder.embed_tokens.weight")->shape, (neurarch::graph::Shape{40, 32}));
  EXPECT_TRUE(g.find_tensor("decoder.output_projection.weight")->saved());
  EXPECT_FALSE(g.find_tensor("decoder.embed_tokens.weight")->saved());
  // Position rows: max_position_embeddings + pad_token_id + 1.
  EXPECT_EQ(g.find_tensor("decoder.embed_positions.weight")->shape, (neurarch::graph::Shape{1026, 32}));
}
