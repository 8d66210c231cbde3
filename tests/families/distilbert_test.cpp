#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

TEST(DistilBertConfig, AttributeMapAliasesAreRead) {
  auto g = build_model(Config::parse(R"({"model_type": "distilbert", "hidden_size": 384, "num_hidden_layers": 3})",
                                     "config.json"))
               .graph;
  EXPECT_EQ(g.find_tensor("embeddings.word_embeddings.weight")->shape, (neurarch::graph::Shape{30522, 384}));
  EXPECT_NE(g.find_tensor("transformer.layer.2.ffn.lin2.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("transformer.layer.3.ffn.lin2.weight"), nullptr);
}

TEST(DistilBertForward, QuestionAnsweringRefusesOtherThanTwoLabels) {
  BuildOptions options;
  options.class_name = "DistilBertForQuestionAnswering";
  auto g = build_model(Config::parse(R"({"model_type": "distilbert", "num_labels": 3})", "config.json"), options).graph;
  EXPECT_FALSE(g.forward.ok);
}

TEST(DistilBertForward, DimNotDivisibleByHeadsFails) {
  auto g = build_model(Config::parse(R"({"model_type": "distilbert", "dim": 100})", "config.json")).graph;
  EXPECT_FALSE(g.forward.ok);
}

}  // namespace
