#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Shape;
using neurarch::model::build_model;

Config small(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "luke", "num_hidden_layers": 2, "entity_vocab_size": 1000)" + extra + "}",
                       "config.json");
}

TEST(LukeEntities, EntityWeightsAreStoredWithoutClaimingCompute) {
  auto g = build_model(small()).graph;
  ASSERT_TRUE(g.forward.ok);
  const auto* query = g.find_tensor("encoder.layer.1.attention.self.e2e_query.weight");
  ASSERT_NE(query, nullptr);
  EXPECT_FALSE(g.nodes.at(static_cast<std::size_t>(query->node)).attention.has_value());
  EXPECT_EQ(g.find_tensor("entity_embeddings.entity_embedding_dense.weight")->shape, (Shape{768, 256}));
  auto plain = build_model(small(R"(, "use_entity_aware_attention": false, "entity_emb_size": 768)")).graph;
  EXPECT_EQ(plain.find_tensor("encoder.layer.1.attention.self.e2e_query.weight"), nullptr);
  EXPECT_EQ(plain.find_tensor("entity_embeddings.entity_embedding_dense.weight"), nullptr);
}

}  // namespace
