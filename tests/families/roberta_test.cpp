#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

const neurarch::graph::Node* node(const neurarch::graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

// roberta-base: 514 position rows, pad_token_id 1, so positions 2..513 hold tokens.
Config roberta_base() {
  return Config::parse(R"({"model_type": "roberta", "max_position_embeddings": 514, "pad_token_id": 1,
                           "type_vocab_size": 1, "num_hidden_layers": 2})",
                       "config.json");
}

TEST(RobertaForward, PositionsStartAfterThePadId) {
  BuildOptions fits;
  fits.seq = 512;
  EXPECT_TRUE(build_model(roberta_base(), fits).graph.forward.ok);

  BuildOptions too_long;
  too_long.seq = 513;
  auto g = build_model(roberta_base(), too_long).graph;
  ASSERT_FALSE(g.forward.ok);
  EXPECT_EQ(g.nodes.at(static_cast<std::size_t>(g.forward.node)).name, "Position_Embedding");
  EXPECT_NE(g.forward.reason.find("512 usable"), std::string::npos) << g.forward.reason;
}

TEST(RobertaForward, DefaultSequenceIsTheUsablePositions) {
  auto g = build_model(roberta_base()).graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_shape, (neurarch::graph::Shape{512}));
}

TEST(RobertaDefaults, AbsentKeysTakeRobertaConfigDefaults) {
  auto g = build_model(Config::parse(R"({"model_type": "roberta"})", "config.json")).graph;
  const auto* words = g.find_tensor("embeddings.word_embeddings.weight");
  ASSERT_NE(words, nullptr);
  EXPECT_EQ(words->shape, (neurarch::graph::Shape{50265, 768}));
  EXPECT_NE(g.find_tensor("encoder.layer.11.output.LayerNorm.bias"), nullptr);
  EXPECT_NE(g.find_tensor("pooler.dense.weight"), nullptr);
}

TEST(RobertaHeads, ClassificationHeadPoolsTheFirstTokenItself) {
  BuildOptions options;
  options.class_name = "RobertaForSequenceClassification";
  auto g = build_model(Config::parse(R"({"model_type": "roberta", "num_labels": 3, "num_hidden_layers": 1})",
                                     "config.json"),
                       options)
               .graph;
  EXPECT_EQ(g.find_tensor("roberta.pooler.dense.weight"), nullptr);
  const auto* out = node(g, "Classifier");
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(out->out, (neurarch::graph::Shape{3}));
  ASSERT_NE(g.find_tensor("classifier.out_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("classifier.out_proj.weight")->shape, (neurarch::graph::Shape{3, 768}));
}

TEST(RobertaHeads, QuestionAnsweringNeedsTwoLabels) {
  BuildOptions options;
  options.class_name = "RobertaForQuestionAnswering";
  auto ok = build_model(Config::parse(R"({"model_type": "roberta", "num_hidden_layers": 1})", "c.json"), options);
  EXPECT_TRUE(ok.graph.forward.ok);
  // RobertaConfig keeps 512 position rows, so 510 tokens fit after the pad offset.
  EXPECT_EQ(node(ok.graph, "QA_Outputs")->out, (neurarch::graph::Shape{510, 2}));
  auto bad = build_model(
      Config::parse(R"({"model_type": "roberta", "num_labels": 3, "num_hidden_layers": 1})", "c.json"), options);
  EXPECT_FALSE(bad.graph.forward.ok);
}

}  // namespace
