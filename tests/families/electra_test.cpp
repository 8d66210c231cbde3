#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Shape;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

const neurarch::graph::Node* node(const neurarch::graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(ElectraEmbeddings, ProjectedOnlyWhenNarrowerThanHidden) {
  auto small = build_model(Config::parse(R"({"model_type": "electra", "num_hidden_layers": 1})", "c.json")).graph;
  EXPECT_EQ(small.find_tensor("embeddings_project.weight")->shape, (Shape{256, 128}));
  auto base = build_model(
      Config::parse(R"({"model_type": "electra", "embedding_size": 256, "num_hidden_layers": 1})", "c.json")).graph;
  EXPECT_EQ(base.find_tensor("embeddings_project.weight"), nullptr);
}

TEST(ElectraHeads, DiscriminatorScoresEveryToken) {
  BuildOptions options;
  options.class_name = "ElectraForPreTraining";
  auto g = build_model(Config::parse(R"({"model_type": "electra", "num_hidden_layers": 1})", "c.json"), options).graph;
  EXPECT_EQ(node(g, "Discriminator_Head")->out, Shape{512});
  EXPECT_EQ(g.find_tensor("discriminator_predictions.dense_prediction.weight")->shape, (Shape{1, 256}));
}

TEST(ElectraHeads, GeneratorMapsBackToTheEmbeddingWidth) {
  BuildOptions options;
  options.class_name = "ElectraForMaskedLM";
  auto g = build_model(Config::parse(R"({"model_type": "electra", "num_hidden_layers": 1})", "c.json"), options).graph;
  EXPECT_EQ(g.find_tensor("generator_predictions.dense.weight")->shape, (Shape{128, 256}));
  EXPECT_FALSE(g.find_tensor("generator_lm_head.weight")->saved());
  EXPECT_TRUE(g.find_tensor("generator_lm_head.bias")->saved());
  EXPECT_EQ(node(g, "LM_Head")->out, (Shape{512, 30522}));
}

}  // namespace
