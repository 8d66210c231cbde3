#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

TEST(MraBuffers, PositionIdsAreSavedAsInt64) {
  auto g = neurarch::model::build_model(
               neurarch::Config::parse(R"({"model_type": "mra", "num_hidden_layers": 1})", "config.json"))
               .graph;
  const auto* ids = g.find_tensor("embeddings.position_ids");
  ASSERT_NE(ids, nullptr);
  EXPECT_EQ(ids->dtype, neurarch::DType::I64);
  EXPECT_EQ(ids->shape, (neurarch::graph::Shape{1, 512}));
}

}  // namespace
