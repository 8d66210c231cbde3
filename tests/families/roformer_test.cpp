#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Shape;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

Config small(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "roformer", "num_hidden_layers": 2, "hidden_size": 256,
    "num_attention_heads": 4, "intermediate_size": 1024, "embedding_size": 128)" + extra + "}",
                       "config.json");
}

TEST(RoFormerPositions, FrozenSinusoidTableAndRotatedSelfAttention) {
  auto g = build_model(small()).graph;
  ASSERT_TRUE(g.forward.ok);
  const auto* table = g.find_tensor("encoder.embed_positions.weight");
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->shape, (Shape{1536, 64}));
  EXPECT_TRUE(table->frozen);
  EXPECT_TRUE(table->saved());
  int rotated = 0;
  for (const auto& n : g.nodes)
    if (n.attention && n.attention->rotary) ++rotated;
  EXPECT_EQ(rotated, 2);
}

TEST(RoFormerEmbeddings, NarrowEmbeddingsAreProjectedAndTheMlmHeadMapsBack) {
  BuildOptions options;
  options.class_name = "RoFormerForMaskedLM";
  auto g = build_model(small(), options).graph;
  EXPECT_EQ(g.find_tensor("roformer.embeddings_project.weight")->shape, (Shape{256, 128}));
  EXPECT_EQ(g.find_tensor("cls.predictions.transform.dense.weight")->shape, (Shape{128, 256}));
  EXPECT_EQ(g.find_tensor("cls.predictions.decoder.weight")->shape, (Shape{50000, 128}));
}

TEST(RoFormerForward, SequenceBeyondTheSinusoidTableFails) {
  BuildOptions options;
  options.seq = 1537;
  EXPECT_FALSE(build_model(small(), options).graph.forward.ok);
}

}  // namespace
