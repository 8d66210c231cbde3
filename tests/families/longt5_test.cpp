#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "plan/activations.hpp"
#include "plan/weights.hpp"
#include "support/family_graph.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Graph;
using neurarch::graph::Node;
using neurarch::graph::Shape;
using neurarch::testing::build_graph;
using neurarch::testing::find_node;

Config tiny(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "longt5", "d_model": 64, "d_kv": 16, "d_ff": 128, "num_heads": 4,
                           "num_layers": 2, "num_decoder_layers": 2, "vocab_size": 100, "local_radius": 7,
                           "global_block_size": 4)" + extra + "}",
                       "config.json");
}

}  // namespace

TEST(LongT5Graph, LocalAttentionScoresThreeBlocksPerBlockOfQueries) {
  auto g = build_graph(tiny(), "LongT5ForConditionalGeneration", 40, 12);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // local_radius 7: blocks of 8 queries, each scoring its own and both neighbouring blocks.
  const Node* local = find_node(g, "Attention_1");
  ASSERT_NE(local, nullptr);
  EXPECT_EQ(local->path, "encoder.block.1.layer.0.LocalSelfAttention");
  EXPECT_EQ(local->attention->query_len, 8);
  EXPECT_EQ(local->attention->kv_len, 24);
  EXPECT_EQ(local->attention->window, 15);
  EXPECT_FALSE(local->attention->sdpa);
  EXPECT_EQ(local->out, (Shape{40, 64}));
  const Node* bias = find_node(g, "Relative_Position_Bias_0");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->out, (Shape{4, 8, 24}));
  EXPECT_EQ(local->inputs.back(), bias->index);
  EXPECT_EQ(g.find_tensor("encoder.block.1.layer.0.LocalSelfAttention.relative_attention_bias.weight"), nullptr);
  // The decoder is T5's: full causal self-attention and cross-attention over the whole source.
  EXPECT_EQ(find_node(g, "Decoder_Attention_0")->attention->kv_len, 12);
  EXPECT_EQ(find_node(g, "Decoder_Cross_Attention_1")->attention->kv_len, 40);
}

TEST(LongT5Graph, TransientGlobalAddsSummaryKeysAndTheirTensors) {
  auto g = build_graph(tiny(R"(, "encoder_attention_type": "transient-global")"), "LongT5Model", 40, 12);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const Node* tg = find_node(g, "Attention_0");
  ASSERT_NE(tg, nullptr);
  // 40 tokens / global_block_size 4 = 10 summary keys after the 24 local ones.
  EXPECT_EQ(tg->attention->kv_len, 34);
  const std::string a = "encoder.block.0.layer.0.TransientGlobalSelfAttention.";
  ASSERT_NE(g.find_tensor(a + "global_relative_attention_bias.weight"), nullptr);
  EXPECT_EQ(g.find_tensor(a + "global_relative_attention_bias.weight")->shape, (Shape{32, 4}));
  EXPECT_EQ(g.find_tensor(a + "global_input_layer_norm.weight")->shape, (Shape{64}));
  const std::string b = "encoder.block.1.layer.0.TransientGlobalSelfAttention.";
  EXPECT_NE(g.find_tensor(b + "global_input_layer_norm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor(b + "global_relative_attention_bias.weight"), nullptr);
  const Node* side = find_node(g, "Global_Relative_Position_Bias_0");
  ASSERT_NE(side, nullptr);
  EXPECT_EQ(side->out, (Shape{4, 40, 10}));
}

TEST(LongT5Graph, BlockedScoresAreFarFewerThanFullOnes) {
  // The eager-only attention keeps its probabilities: blocks make them linear in the length.
  auto g = build_graph(tiny(R"(, "local_radius": 127)"), "LongT5EncoderModel", 4096);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const Node* a = find_node(g, "Attention_0");
  ASSERT_NE(a, nullptr);
  const auto scores = (4096 / a->attention->query_len) * a->attention->query_len * a->attention->kv_len;
  EXPECT_EQ(scores, 4096 * 384);
  EXPECT_EQ(g.inputs.size(), 1u);
}

TEST(LongT5Config, UnknownEncoderAttentionTypeCannotRun) {
  auto g = build_graph(tiny(R"(, "encoder_attention_type": "global")"), "LongT5Model", 32, 8);
  EXPECT_FALSE(g.forward.ok);
  EXPECT_NE(g.forward.reason.find("encoder_attention_type"), std::string::npos);
}

TEST(LongT5Config, DefaultSourceLengthFollowsPretraining) {
  auto g = build_graph(tiny(), "LongT5Model");
  EXPECT_EQ(g.input_shape, (Shape{2048}));  // 4096 capped to the default sequence cap
}

TEST(LongT5Plan, ThePlannerKeepsBlockedProbabilitiesNotASquare) {
  auto g = build_graph(tiny(R"(, "local_radius": 127)"), "LongT5EncoderModel", 1024);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  neurarch::plan::Setup s;
  s.precision = neurarch::plan::Precision::Fp32;
  const auto m = neurarch::plan::saved_activations(g, s, neurarch::plan::weight_roles(g, s));
  const Node* a = find_node(g, "Attention_0");
  ASSERT_NE(a, nullptr);
  std::int64_t probabilities = 0;
  for (const auto& t : m.nodes[static_cast<std::size_t>(a->index)].saved)
    if (t.what == "attention probabilities (softmax output)") probabilities = t.elements;
  // 8 blocks of 128 queries x 4 heads x 384 keys, a 1024 x 1024 square would be 2.7x more.
  EXPECT_EQ(probabilities, 8 * 4 * 128 * 384);
}
