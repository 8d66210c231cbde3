#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

TEST(Data2vecVisionFamily, BareModelHasNoPoolerButTheClassifierDoes) {
  model::BuildOptions options;
  auto bare = model::build_model(Config({{"model_type", "data2vec-vision"}}, "config.json"), options);
  EXPECT_EQ(bare.graph.find_tensor("pooler.layernorm.weight"), nullptr);
  EXPECT_EQ(bare.graph.nodes.back().out, (graph::Shape{197, 768}));
  options.class_name = "Data2VecVisionForImageClassification";
  auto head = model::build_model(Config({{"model_type", "data2vec-vision"}}, "config.json"), options);
  EXPECT_NE(head.graph.find_tensor("data2vec_vision.pooler.layernorm.weight"), nullptr);
  EXPECT_EQ(head.graph.nodes.back().out, (graph::Shape{2}));
}

}  // namespace
}  // namespace neurarch
