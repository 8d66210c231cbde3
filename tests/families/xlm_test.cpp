#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Shape;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

Config small(const std::string& type, const std::string& extra = "") {
  return Config::parse(R"({"model_type": ")" + type + R"(", "n_layers": 2, "emb_dim": 256, "n_heads": 4)" + extra +
                           "}",
                       "config.json");
}

const neurarch::graph::Node* node(const neurarch::graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(XlmEmbeddings, LanguageTableOnlyForSeveralLanguagesAndFrozenSinusoids) {
  EXPECT_EQ(build_model(small("xlm")).graph.find_tensor("lang_embeddings.weight"), nullptr);
  auto g = build_model(small("xlm", R"(, "n_langs": 15, "sinusoidal_embeddings": true)")).graph;
  ASSERT_TRUE(g.forward.ok);
  EXPECT_EQ(g.find_tensor("lang_embeddings.weight")->shape, (Shape{15, 256}));
  EXPECT_TRUE(g.find_tensor("position_embeddings.weight")->frozen);
  EXPECT_FALSE(g.find_tensor("embeddings.weight")->frozen);
  EXPECT_EQ(g.find_tensor("ffns.1.lin1.weight")->shape, (Shape{1024, 256}));
}

TEST(XlmHeads, SummaryProjectsTheFirstTokenAndAdaptiveSoftmaxIsRefused) {
  BuildOptions options;
  options.class_name = "XLMForSequenceClassification";
  auto g = build_model(small("xlm", R"(, "num_labels": 3)"), options).graph;
  EXPECT_EQ(node(g, "Sequence_Summary")->out, (Shape{3}));
  options.class_name = "XLMWithLMHeadModel";
  EXPECT_FALSE(build_model(small("xlm", R"(, "asm": true)"), options).graph.forward.ok);
}

TEST(FlaubertLayers, PreNormPutsTheNormsBeforeTheSublayers) {
  auto g = build_model(small("flaubert", R"(, "pre_norm": true)")).graph;
  ASSERT_TRUE(g.forward.ok);
  std::vector<std::string> names;
  for (const auto& n : g.nodes)
    if (n.block == 0) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"LayerNorm_0_1", "Attention_0", "Add_0_1", "LayerNorm_0_2", "FFN_0",
                                             "Add_0_2"}));
}

}  // namespace
