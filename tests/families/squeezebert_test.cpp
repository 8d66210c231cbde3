#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Shape;
using neurarch::model::build_model;

Config small(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "squeezebert", "num_hidden_layers": 2)" + extra + "}", "config.json");
}

const neurarch::graph::Node* node(const neurarch::graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(SqueezeBertLayers, GroupedPointwiseConvolutionsReplaceTheLinears) {
  auto g = build_model(small()).graph;
  ASSERT_TRUE(g.forward.ok);
  EXPECT_EQ(node(g, "Intermediate_1")->conv->groups, 4);
  EXPECT_EQ(node(g, "Intermediate_1")->out, (Shape{512, 3072}));
  EXPECT_EQ(g.find_tensor("encoder.layers.1.output.conv1d.weight")->shape, (Shape{768, 768, 1}));
  EXPECT_EQ(g.find_tensor("encoder.layers.1.attention.key.weight")->shape, (Shape{768, 192, 1}));
}

TEST(SqueezeBertLayers, GroupsThatDoNotDivideTheChannelsFail) {
  EXPECT_FALSE(build_model(small(R"(, "q_groups": 5)")).graph.forward.ok);
  EXPECT_FALSE(build_model(small(R"(, "output_groups": 7)")).graph.forward.ok);
  EXPECT_FALSE(build_model(small(R"(, "embedding_size": 128)")).graph.forward.ok);
}

}  // namespace
