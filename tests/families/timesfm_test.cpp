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

TEST(TimesFmFamily, PatchesOfValuesAndPaddingThroughTheResidualBlock) {
  auto m = build({{"model_type", "timesfm"}, {"num_hidden_layers", 2}}, "TimesFmModel", 512);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "time_series");
  // 512 values in 16 patches of 32, each joined to its 32 padding flags.
  EXPECT_EQ(node(g, "Patches_With_Padding").out, (graph::Shape{16, 64}));
  EXPECT_EQ(node(g, "Attention_1").attention->query_len, 16);
  EXPECT_TRUE(node(g, "Attention_1").attention->causal);
  EXPECT_EQ(g.find_tensor("layers.1.self_attn.scaling")->shape, (graph::Shape{80}));
  EXPECT_EQ(g.find_tensor("position_emb.inv_timescales"), nullptr);
}

TEST(TimesFmFamily, ContextMustBeWholePatches) {
  auto m = build({{"model_type", "timesfm"}, {"num_hidden_layers", 1}}, "TimesFmModel", 500);
  EXPECT_FALSE(m.graph.forward.ok);
}

}  // namespace
}  // namespace neurarch
