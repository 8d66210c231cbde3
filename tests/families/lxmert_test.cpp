#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(LxmertFamily, OneCrossAttentionModuleRunsBothWays) {
  model::BuildOptions options;
  options.class_name = "LxmertModel";
  options.seq = 20;
  auto m = model::build_model(
      Config(nlohmann::json{{"model_type", "lxmert"}, {"l_layers", 1}, {"x_layers", 1}, {"r_layers", 1}}, "config.json"),
      options);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // 20 tokens attend to the 36 regions, and the regions to the 20 tokens, with the same weights.
  const auto& to_vision = node(g, "Language_To_Vision_Cross_0");
  const auto& to_language = node(g, "Vision_To_Language_Cross_0");
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
