#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/family_graph.hpp"

namespace neurarch {
namespace {

using testing::find_node;

graph::Graph build(nlohmann::json config, const std::string& cls, std::optional<std::int64_t> seq = {}) {
  return testing::build_graph(Config(std::move(config), "config.json"), cls, seq);
}

TEST(Kosmos25Family, PixStructPatchesFeedTheLatentQueries) {
  const auto g = build({{"model_type", "kosmos-2.5"},
                  {"text_config", {{"layers", 1}}},
                  {"vision_config", {{"num_hidden_layers", 1}}}},
                 "Kosmos2_5ForConditionalGeneration", 2048);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "tokens");
  // flattened_patches: 2048 rows of [row, column, 768 pixels].
  graph::Shape patches;
  for (const auto& input : g.inputs)
    if (input.name == "flattened_patches") patches = input.shape;
  EXPECT_EQ(patches, (graph::Shape{2048, 770}));
  const auto& x_attn = *find_node(g, "Projection_Cross_Attention");
  EXPECT_EQ(x_attn.attention->query_len, 2048);
  EXPECT_EQ(x_attn.attention->kv_len, 2048 + 2048);
  EXPECT_TRUE(x_attn.attention->sdpa);
  EXPECT_EQ(g.find_tensor("text_model.model.segment_emb.weight")->shape, (graph::Shape{2, 1536}));
  EXPECT_EQ(g.find_tensor("text_model.model.layers.0.self_attn.inner_attn_ln.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("vision_model.embeddings.row_embedder.weight")->shape, (graph::Shape{4096, 1536}));
  EXPECT_EQ(g.find_tensor("text_model.lm_head.weight")->tied_to, "text_model.model.embed_tokens.weight");
}

TEST(Kosmos25Family, PromptMustHoldTheLatents) {
  const auto g = build({{"model_type", "kosmos-2.5"}, {"text_config", {{"layers", 1}}},
                  {"vision_config", {{"num_hidden_layers", 1}}}},
                 "Kosmos2_5Model", 1024);
  EXPECT_FALSE(g.forward.ok);
}

}  // namespace
}  // namespace neurarch
