#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

TEST(BigBirdHeads, QuestionAnsweringDropsThePoolerAndAddsAnFfn) {
  BuildOptions options;
  options.class_name = "BigBirdForQuestionAnswering";
  auto g = build_model(Config::parse(R"({"model_type": "big_bird", "num_hidden_layers": 1})", "c.json"), options).graph;
  EXPECT_EQ(g.find_tensor("bert.pooler.weight"), nullptr);
  EXPECT_NE(g.find_tensor("qa_classifier.intermediate.dense.weight"), nullptr);
  EXPECT_NE(g.find_tensor("qa_classifier.output.LayerNorm.bias"), nullptr);
  EXPECT_NE(g.find_tensor("qa_classifier.qa_outputs.weight"), nullptr);
}

TEST(BigBirdAttention, UseBiasSwitchesQkvBiases) {
  auto g = build_model(Config::parse(R"({"model_type": "big_bird", "num_hidden_layers": 1, "use_bias": false})",
                                     "c.json"))
               .graph;
  EXPECT_EQ(g.find_tensor("encoder.layer.0.attention.self.query.bias"), nullptr);
  EXPECT_NE(g.find_tensor("encoder.layer.0.attention.output.dense.bias"), nullptr);
}

}  // namespace
