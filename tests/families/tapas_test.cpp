#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Shape;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

TEST(TapasHeads, QuestionAnsweringScoresCellsAndAggregates) {
  BuildOptions options;
  options.class_name = "TapasForQuestionAnswering";
  auto g = build_model(Config::parse(R"({"model_type": "tapas", "num_hidden_layers": 1, "num_aggregation_labels": 4})",
                                     "config.json"),
                       options)
               .graph;
  ASSERT_NE(g.find_tensor("output_bias"), nullptr);
  EXPECT_EQ(g.find_tensor("output_bias")->shape, Shape{});
  EXPECT_EQ(g.find_tensor("column_output_weights")->shape, Shape{768});
  EXPECT_EQ(g.find_tensor("aggregation_classifier.weight")->shape, (Shape{4, 768}));
  EXPECT_NE(g.find_tensor("tapas.pooler.dense.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("tapas.embeddings.token_type_embeddings_6.weight")->shape, (Shape{10, 768}));
  EXPECT_EQ(g.input_shape, Shape{1024});
}

}  // namespace
