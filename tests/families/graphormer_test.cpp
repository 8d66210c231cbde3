#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, const std::string& cls, std::optional<std::int64_t> seq = {}) {
  model::BuildOptions options;
  options.class_name = cls;
  options.seq = seq;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(GraphormerFamily, GraphTokenAndBiasOverEveryNodePair) {
  auto m = build({{"model_type", "graphormer"}, {"num_hidden_layers", 2}}, "GraphormerForGraphClassification", 64);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // 64 nodes and the graph token.
  EXPECT_EQ(node(g, "Graph_Attention_Bias").out, (graph::Shape{32, 65, 65}));
  const auto& attn = node(g, "Attention_1");
  EXPECT_EQ(attn.attention->query_len, 65);
  EXPECT_FALSE(attn.attention->sdpa);
  EXPECT_EQ(attn.inputs.back(), node(g, "Graph_Attention_Bias").index);
  // 128 hop distances x 32 x 32 heads.
  EXPECT_EQ(g.find_tensor("encoder.graph_encoder.graph_attn_bias.edge_dis_encoder.weight")->shape,
            (graph::Shape{131072, 1}));
  EXPECT_EQ(g.find_tensor("classifier.classifier.weight")->shape, (graph::Shape{1, 768}));
  EXPECT_EQ(g.find_tensor("classifier.lm_output_learned_bias")->shape, (graph::Shape{1}));
}

}  // namespace
}  // namespace neurarch
