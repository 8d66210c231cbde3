#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/error.hpp"
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
  return Config::parse(R"({"model_type": "led", "d_model": 32, "encoder_layers": 2, "decoder_layers": 2,
                           "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64,
                           "decoder_ffn_dim": 64, "vocab_size": 100, "max_encoder_position_embeddings": 256,
                           "max_decoder_position_embeddings": 64, "attention_window": [4, 8])" + extra + "}",
                       "config.json");
}

}  // namespace

TEST(LedGraph, EncoderAttentionSlidesOverEachLayersWindow) {
  auto g = build_graph(tiny(), "LEDForConditionalGeneration", 64, 16);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const Node* first = find_node(g, "Attention_0");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->path, "led.encoder.layers.0.self_attn");
  // attention_window 4: 2 tokens each side, 5 keys per query, in chunks of 2 queries.
  EXPECT_EQ(first->attention->kv_len, 5);
  EXPECT_EQ(first->attention->query_len, 2);
  EXPECT_FALSE(first->attention->sdpa);
  EXPECT_EQ(find_node(g, "Attention_1")->attention->kv_len, 9);
  EXPECT_EQ(find_node(g, "Decoder_Cross_Attention_1")->attention->kv_len, 64);
  // The global projections are weights without compute: no attention node owns them.
  const auto* global = g.find_tensor("led.encoder.layers.1.self_attn.longformer_self_attn.key_global.weight");
  ASSERT_NE(global, nullptr);
  EXPECT_EQ(global->shape, (Shape{32, 32}));
  EXPECT_FALSE(g.nodes.at(static_cast<std::size_t>(global->node)).attention.has_value());
  EXPECT_NE(g.find_tensor("led.encoder.layers.1.self_attn.output.bias"), nullptr);
}

TEST(LedGraph, EachStackHasItsOwnPositionTable) {
  auto g = build_graph(tiny(), "LEDModel");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("encoder.embed_positions.weight")->shape, (Shape{256, 32}));
  EXPECT_EQ(g.find_tensor("decoder.embed_positions.weight")->shape, (Shape{64, 32}));
  // Defaults: the whole encoder table, the decoder's table for the target.
  EXPECT_EQ(g.input_shape, (Shape{256}));
  EXPECT_EQ(g.inputs[1].shape, (Shape{64}));
  EXPECT_FALSE(build_graph(tiny(), "LEDModel", 300, 16).forward.ok);
  // Classification feeds the source to the decoder too: its default source fits the decoder's table.
  auto cls = build_graph(tiny(), "LEDForSequenceClassification");
  ASSERT_TRUE(cls.forward.ok) << cls.forward.reason;
  EXPECT_EQ(cls.input_shape, (Shape{64}));
  EXPECT_EQ(cls.inputs[1].shape, (Shape{64}));
  EXPECT_FALSE(build_graph(tiny(), "LEDForSequenceClassification", 128).forward.ok);
}

TEST(LedConfig, WindowsMustBeEvenAndOnePerLayer) {
  auto odd = build_graph(tiny(R"(, "attention_window": 5)"), "LEDModel", 32, 8);
  EXPECT_FALSE(odd.forward.ok);
  EXPECT_NE(odd.forward.reason.find("attention_window"), std::string::npos);
  EXPECT_THROW(build_graph(tiny(R"(, "attention_window": [4, 4, 4])"), "LEDModel", 32, 8), neurarch::Error);
  auto padded = build_graph(tiny(R"(, "attention_window": 16)"), "LEDModel", 40, 8);
  ASSERT_TRUE(padded.forward.ok);
  bool noted = false;
  for (const auto& n : padded.notes) noted |= n.find("pads") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(LedPlan, ThePlannerKeepsOneWindowOfProbabilitiesPerToken) {
  auto g = build_graph(tiny(), "LEDModel", 64, 16);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  neurarch::plan::Setup s;
  s.precision = neurarch::plan::Precision::Fp32;
  const auto m = neurarch::plan::saved_activations(g, s, neurarch::plan::weight_roles(g, s));
  auto probabilities = [&](const std::string& name) {
    const Node* a = find_node(g, name);
    for (const auto& t : m.nodes[static_cast<std::size_t>(a->index)].saved)
      if (t.what == "attention probabilities (softmax output)") return t.elements;
    return std::int64_t{0};
  };
  // 64 tokens x 4 heads x (2 x 2 + 1) and x (2 x 4 + 1) keys; the decoder's cross-attention stays full.
  EXPECT_EQ(probabilities("Attention_0"), 64 * 4 * 5);
  EXPECT_EQ(probabilities("Attention_1"), 64 * 4 * 9);
  EXPECT_EQ(probabilities("Decoder_Cross_Attention_0"), 16 * 4 * 64);
}
