#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Shape;
using neurarch::model::build_model;

Config small(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "ibert", "num_hidden_layers": 2)" + extra + "}", "config.json");
}

TEST(IBertQuantState, IntegerWeightCopiesAreSavedBuffers) {
  auto g = build_model(small()).graph;
  ASSERT_TRUE(g.forward.ok);
  const auto* copy = g.find_tensor("encoder.layer.1.intermediate.dense.weight_integer");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->shape, (Shape{3072, 768}));
  EXPECT_EQ(copy->kind, neurarch::graph::TensorKind::Buffer);
  EXPECT_TRUE(copy->saved());
  EXPECT_NE(g.find_tensor("encoder.layer.1.attention.output.LayerNorm.shift"), nullptr);
}

TEST(IBertPositions, OnlyAbsolutePositions) {
  EXPECT_FALSE(build_model(small(R"(, "position_embedding_type": "relative_key")")).graph.forward.ok);
}

}  // namespace
