#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> seq = {}) {
  model::BuildOptions options;
  options.seq = seq;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(VisualBertFamily, RegionFeaturesJoinTheTextBeforeTheEmbeddingNorm) {
  auto m = build({{"model_type", "visual_bert"}, {"visual_embedding_dim", 2048}}, 64);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_EQ(g.inputs[1].name, "visual_embeds");
  EXPECT_EQ(g.inputs[1].shape, (graph::Shape{36, 2048}));
  EXPECT_EQ(g.find_tensor("embeddings.visual_projection.weight")->shape, (graph::Shape{768, 2048}));
  EXPECT_EQ(node(g, "Embedding_LayerNorm").out, (graph::Shape{64 + 36, 768}));
  EXPECT_EQ(node(g, "Attention_0").attention->query_len, 64 + 36);
  EXPECT_FALSE(node(g, "Attention_0").attention->sdpa);
  EXPECT_FALSE(g.notes.empty());  // the region count is an assumption
}

}  // namespace
}  // namespace neurarch
