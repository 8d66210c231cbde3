#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/family_graph.hpp"

namespace neurarch {
namespace {

using testing::find_node;

graph::Graph build(nlohmann::json config, const std::string& cls, std::optional<std::int64_t> seq = {}) {
  return testing::build_graph(Config(std::move(config), "config.json"), cls, seq);
}

TEST(LxmertFamily, OneCrossAttentionModuleRunsBothWays) {
  const auto g = build({{"model_type", "lxmert"}, {"l_layers", 1}, {"x_layers", 1}, {"r_layers", 1}}, "LxmertModel", 20);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // 20 tokens attend to the 36 regions, and the regions to the 20 tokens, with the same weights.
  const auto& to_vision = *find_node(g, "Language_To_Vision_Cross_0");
  const auto& to_language = *find_node(g, "Vision_To_Language_Cross_0");
  EXPECT_EQ(to_vision.attention->query_len, 20);
  EXPECT_EQ(to_vision.attention->kv_len, 36);
  EXPECT_EQ(to_language.attention->query_len, 36);
  EXPECT_EQ(to_language.attention->kv_len, 20);
  const auto& q = g.tensors[static_cast<std::size_t>(to_language.tensors.front())];
  EXPECT_EQ(q.name, "encoder.x_layers.0.visual_attention.att.query.weight");
  EXPECT_FALSE(q.saved());
  EXPECT_TRUE(g.find_tensor("encoder.x_layers.0.visual_attention.output.LayerNorm.weight")->saved());
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{768}));
}

}  // namespace
}  // namespace neurarch
