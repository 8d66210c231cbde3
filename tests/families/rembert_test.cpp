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
  return Config::parse(R"({"model_type": "rembert", "num_hidden_layers": 2, "vocab_size": 1000)" + extra + "}",
                       "config.json");
}

TEST(RemBertEmbeddings, MappedToHiddenEvenWhenTheWidthsAgree) {
  auto g = build_model(small(R"(, "input_embedding_size": 1152)")).graph;
  ASSERT_TRUE(g.forward.ok);
  EXPECT_EQ(g.find_tensor("encoder.embedding_hidden_mapping_in.weight")->shape, (Shape{1152, 1152}));
}

TEST(RemBertHeads, DecoderReadsTheOutputEmbeddingWidth) {
  BuildOptions options;
  options.class_name = "RemBertForMaskedLM";
  auto g = build_model(small(R"(, "output_embedding_size": 512)"), options).graph;
  ASSERT_TRUE(g.forward.ok);
  EXPECT_EQ(g.find_tensor("cls.predictions.decoder.weight")->shape, (Shape{1000, 512}));
  EXPECT_TRUE(g.find_tensor("cls.predictions.decoder.weight")->saved());
  auto tied = build_model(small(R"(, "tie_word_embeddings": true)"), options).graph;
  EXPECT_FALSE(tied.forward.ok);
}

}  // namespace
