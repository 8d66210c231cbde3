#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/family_graph.hpp"

namespace neurarch {
namespace {

using testing::find_node;

graph::Graph build(nlohmann::json config, const std::string& cls, std::optional<std::int64_t> seq = {}) {
  return testing::build_graph(Config(std::move(config), "config.json"), cls, seq);
}

TEST(GraphormerFamily, GraphTokenAndBiasOverEveryNodePair) {
  const auto g = build({{"model_type", "graphormer"}, {"num_hidden_layers", 2}}, "GraphormerForGraphClassification", 64);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // 64 nodes and the graph token.
  EXPECT_EQ(find_node(g, "Graph_Attention_Bias")->out, (graph::Shape{32, 65, 65}));
  const auto& attn = *find_node(g, "Attention_1");
  EXPECT_EQ(attn.attention->query_len, 65);
  EXPECT_FALSE(attn.attention->sdpa);
  EXPECT_EQ(attn.inputs.back(), find_node(g, "Graph_Attention_Bias")->index);
  // 128 hop distances x 32 x 32 heads.
  EXPECT_EQ(g.find_tensor("encoder.graph_encoder.graph_attn_bias.edge_dis_encoder.weight")->shape,
            (graph::Shape{131072, 1}));
  EXPECT_EQ(g.find_tensor("classifier.classifier.weight")->shape, (graph::Shape{1, 768}));
  EXPECT_EQ(g.find_tensor("classifier.lm_output_learned_bias")->shape, (graph::Shape{1}));
}

}  // namespace
}  // namespace neurarch
