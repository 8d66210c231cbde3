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

Config tiny(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "bart", "d_model": 32, "encoder_layers": 2, "decoder_layers": 1,
                           "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64,
                           "decoder_ffn_dim": 64, "vocab_size": 100, "max_position_embeddings": 64)" + extra + "}",
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

}  // namespace

TEST(BartGraph, LearnedPositionsKeepTwoOffsetRows) {
  auto g = build(tiny(), "BartModel");
  EXPECT_EQ(g.find_tensor("encoder.embed_positions.weight")->shape, (Shape{66, 32}));
  EXPECT_EQ(g.input_shape, (Shape{64}));
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[1].shape, (Shape{64}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_FALSE(build(tiny(), "BartModel", 65).forward.ok);
  EXPECT_FALSE(build(tiny(), "BartModel", 32, 65).forward.ok);
}

TEST(BartGraph, TargetSequenceSizesTheDecoderAndCrossAttention) {
  auto g = build(tiny(), "BartForConditionalGeneration", 48, 10);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.inputs[1].shape, (Shape{10}));
  EXPECT_EQ(g.nodes.back().out, (Shape{10, 100}));
  bool found = false;
  for (const auto& n : g.nodes)
    if (n.name == "Decoder_Cross_Attention_0") {
      found = true;
      EXPECT_EQ(n.attention->query_len, 10);
      EXPECT_EQ(n.attention->kv_len, 48);
    }
  EXPECT_TRUE(found);
  const auto* bias = g.find_tensor("final_logits_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->kind, neurarch::graph::TensorKind::Buffer);
  EXPECT_EQ(bias->shape, (Shape{1, 100}));
}

TEST(BartGraph, CausalLmIsDecoderOnlyButStoresCrossAttentionWeights) {
  auto g = build(tiny(), "BartForCausalLM", 20);
  EXPECT_EQ(g.inputs.size(), 1u);
  EXPECT_NE(g.find_tensor("model.decoder.layers.0.encoder_attn.q_proj.weight"), nullptr);
  for (const auto& n : g.nodes) EXPECT_FALSE(n.attention && n.attention->kv_input >= 0) << n.name;
  EXPECT_FALSE(g.notes.empty());
  EXPECT_EQ(g.find_tensor("lm_head.weight")->tied_to, "model.decoder.embed_tokens.weight");
}
