#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Shape;
using neurarch::model::build_model;

Config small(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "convbert", "num_hidden_layers": 2)" + extra + "}", "config.json");
}

const neurarch::graph::Node* node(const neurarch::graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(ConvBertAttention, HalfTheHeadsAttendAndHalfConvolve) {
  auto g = build_model(small()).graph;
  ASSERT_TRUE(g.forward.ok);
  EXPECT_EQ(node(g, "Attention_1")->attention->heads, 6);
  EXPECT_EQ(node(g, "Span_Depthwise_1")->conv->groups, 768);
  EXPECT_EQ(node(g, "Conv_Kernel_1")->out, (Shape{512, 54}));
  EXPECT_EQ(g.find_tensor("encoder.layer.1.attention.output.dense.weight")->shape, (Shape{768, 768}));
}

TEST(ConvBertFeedForward, GroupedLinearsWhenNumGroupsIsAboveOne) {
  auto g = build_model(small(R"(, "num_groups": 4)")).graph;
  ASSERT_TRUE(g.forward.ok);
  EXPECT_EQ(g.find_tensor("encoder.layer.0.intermediate.dense.weight")->shape, (Shape{4, 192, 768}));
  EXPECT_EQ(g.find_tensor("encoder.layer.0.output.dense.weight")->shape, (Shape{4, 768, 192}));
  EXPECT_FALSE(build_model(small(R"(, "num_groups": 5)")).graph.forward.ok);
}

TEST(ConvBertAttention, OneHeadWhenTheRatioExceedsTheHeads) {
  auto g = build_model(small(R"(, "head_ratio": 24)")).graph;
  EXPECT_EQ(node(g, "Attention_0")->attention->heads, 1);
  EXPECT_EQ(g.find_tensor("encoder.layer.0.attention.self.query.weight")->shape, (Shape{64, 768}));
  // 12 x 64 concatenated channels: the reference's view succeeds.
  EXPECT_TRUE(g.forward.ok);
}

}  // namespace
