// Perceiver IO: the self-attention block repeated num_blocks times is a node per run and weights once; the
// encoder's cross-attention takes its q/k width from cross_attention_shape_for_attention; a width the heads do
// not divide stops the forward pass with the reference's message.
#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

namespace {

graph::Graph build(const std::string& json, const std::string& cls) {
  model::BuildOptions options;
  options.class_name = cls;
  return model::build_model(Config::parse(json, "config.json"), options).graph;
}

int count_attention(const graph::Graph& g) {
  int n = 0;
  for (const auto& node : g.nodes)
    if (node.attention) ++n;
  return n;
}

}  // namespace

TEST(PerceiverGraph, RepeatedBlockRunsEveryTimeWithOneSetOfWeights) {
  const std::string small = R"({"model_type": "perceiver", "num_latents": 16, "d_latents": 64, "d_model": 32,
      "num_self_attends_per_block": 2, "num_self_attention_heads": 4, "num_cross_attention_heads": 2,
      "max_position_embeddings": 40, "vocab_size": 50)";
  const auto once = build(small + R"(, "num_blocks": 1})", "PerceiverModel");
  const auto thrice = build(small + R"(, "num_blocks": 3})", "PerceiverModel");
  ASSERT_TRUE(thrice.forward.ok) << thrice.forward.reason;
  EXPECT_EQ(count_attention(once), 1 + 2);
  EXPECT_EQ(count_attention(thrice), 1 + 3 * 2);
  EXPECT_EQ(thrice.saved_scalars(), once.saved_scalars());
  EXPECT_EQ(thrice.parameter_count(), once.parameter_count());
  // The latents are the queries of the cross-attention, the inputs its keys and values.
  const auto* cross = &thrice.nodes.at(0);
  for (const auto& n : thrice.nodes)
    if (n.name == "Attention_Cross") cross = &n;
  ASSERT_TRUE(cross->attention);
  EXPECT_EQ(cross->attention->query_len, 16);
  EXPECT_EQ(cross->attention->kv_len, 40);
  EXPECT_GE(cross->attention->kv_input, 0);
  EXPECT_EQ(cross->out, (graph::Shape{16, 64}));
}

TEST(PerceiverGraph, CrossAttentionWidthFollowsShapeForAttention) {
  const std::string base = R"({"model_type": "perceiver", "num_latents": 8, "d_latents": 64, "d_model": 32,
      "num_self_attends_per_block": 1, "num_self_attention_heads": 4, "num_cross_attention_heads": 2,
      "max_position_embeddings": 40, "vocab_size": 50, "cross_attention_shape_for_attention": )";
  const auto kv = build(base + R"("kv"})", "PerceiverForSequenceClassification");
  const auto q = build(base + R"("q"})", "PerceiverForSequenceClassification");
  EXPECT_EQ(kv.find_tensor("perceiver.encoder.cross_attention.attention.self.query.weight")->shape,
            (graph::Shape{32, 64}));
  EXPECT_EQ(q.find_tensor("perceiver.encoder.cross_attention.attention.self.query.weight")->shape,
            (graph::Shape{64, 64}));
  EXPECT_EQ(q.find_tensor("perceiver.decoder.decoder.final_layer.weight")->shape, (graph::Shape{2, 64}));
  EXPECT_THROW(build(base + R"("both"})", "PerceiverModel"), std::exception);
}

TEST(PerceiverGraph, HeadsThatDoNotDivideTheInputWidthCannotRun) {
  // The Fourier classifier's 3 + 258 input channels under the default "kv" shape and 8 cross-attention heads.
  const auto g = build(R"({"model_type": "perceiver", "num_latents": 8, "d_latents": 64,
      "num_self_attends_per_block": 1, "num_cross_attention_heads": 8})",
                       "PerceiverForImageClassificationFourier");
  EXPECT_FALSE(g.forward.ok);
  EXPECT_NE(g.forward.reason.find("qk_channels (261) must be divisible by num_heads (8)"), std::string::npos);
}
