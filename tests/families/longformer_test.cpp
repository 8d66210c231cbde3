#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

Config small(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "longformer", "num_hidden_layers": 2, "max_position_embeddings": 4098,
    "attention_window": [128, 256])" + extra + "}",
                       "config.json");
}

const neurarch::graph::Node* node(const neurarch::graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(LongformerAttention, ScoresAWindowPerTokenNotTheWholeSequence) {
  auto g = build_model(small()).graph;
  ASSERT_TRUE(g.forward.ok);
  const auto& a0 = *node(g, "Attention_0")->attention;
  const auto& a1 = *node(g, "Attention_1")->attention;
  EXPECT_EQ(a0.kv_len, 129);
  EXPECT_EQ(a1.kv_len, 257);
  EXPECT_EQ(a1.window, 257);
  EXPECT_FALSE(a1.sdpa);
  EXPECT_EQ(node(g, "Attention_0")->out, (neurarch::graph::Shape{2048, 768}));
}

TEST(LongformerAttention, GlobalProjectionsComputeOnlyWhereTheClassGivesGlobalAttention) {
  auto base = build_model(small()).graph;
  const auto* k = base.find_tensor("encoder.layer.1.attention.self.key_global.weight");
  ASSERT_NE(k, nullptr);
  EXPECT_FALSE(base.nodes.at(static_cast<std::size_t>(k->node)).attention.has_value());
  BuildOptions options;
  options.class_name = "LongformerForSequenceClassification";
  auto cls = build_model(small(), options).graph;
  const auto* kc = cls.find_tensor("longformer.encoder.layer.1.attention.self.key_global.weight");
  ASSERT_NE(kc, nullptr);
  EXPECT_TRUE(cls.nodes.at(static_cast<std::size_t>(kc->node)).attention.has_value());
}

TEST(LongformerAttention, OddWindowOrWrongListLengthFails) {
  EXPECT_FALSE(build_model(small(R"(, "attention_window": 255)")).graph.forward.ok);
  EXPECT_ANY_THROW(build_model(small(R"(, "attention_window": [128])")));
}

}  // namespace
