#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/family_graph.hpp"

namespace neurarch {
namespace {

using testing::find_node;

graph::Graph build(nlohmann::json config, const std::string& cls, std::optional<std::int64_t> seq = {}) {
  return testing::build_graph(Config(std::move(config), "config.json"), cls, seq);
}

TEST(TimesFmFamily, PatchesOfValuesAndPaddingThroughTheResidualBlock) {
  const auto g = build({{"model_type", "timesfm"}, {"num_hidden_layers", 2}}, "TimesFmModel", 512);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "time_series");
  // 512 values in 16 patches of 32, each joined to its 32 padding flags.
  EXPECT_EQ(find_node(g, "Patches_With_Padding")->out, (graph::Shape{16, 64}));
  EXPECT_EQ(find_node(g, "Attention_1")->attention->query_len, 16);
  EXPECT_TRUE(find_node(g, "Attention_1")->attention->causal);
  EXPECT_EQ(g.find_tensor("layers.1.self_attn.scaling")->shape, (graph::Shape{80}));
  EXPECT_EQ(g.find_tensor("position_emb.inv_timescales"), nullptr);
}

TEST(TimesFmFamily, ContextMustBeWholePatches) {
  const auto g = build({{"model_type", "timesfm"}, {"num_hidden_layers", 1}}, "TimesFmModel", 500);
  EXPECT_FALSE(g.forward.ok);
}

}  // namespace
}  // namespace neurarch
