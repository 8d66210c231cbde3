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

Config small(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "bert", "num_hidden_layers": 2)" + extra + "}", "config.json");
}

TEST(BertGraph, PostNormLayersReadLikeAModelCard) {
  auto g = build_model(small()).graph;
  std::vector<std::string> names;
  for (const auto& n : g.nodes)
    if (n.block == 0) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Attention_0", "Add_0_1", "LayerNorm_0_1", "FFN_0", "Add_0_2",
                                             "LayerNorm_0_2"}));
  EXPECT_EQ(node(g, "Embedding_LayerNorm")->out, (Shape{512, 768}));
  EXPECT_EQ(node(g, "Pooler")->out, (Shape{768}));
}

TEST(BertForward, SequenceBeyondThePositionTableFails) {
  BuildOptions options;
  options.seq = 513;
  auto g = build_model(small(), options).graph;
  ASSERT_FALSE(g.forward.ok);
  EXPECT_EQ(g.nodes.at(static_cast<std::size_t>(g.forward.node)).name, "Position_Embedding");
}

TEST(BertForward, HiddenNotDivisibleByHeadsFails) {
  auto g = build_model(small(R"(, "hidden_size": 100, "num_attention_heads": 12)")).graph;
  EXPECT_FALSE(g.forward.ok);
}

TEST(BertHeads, PreTrainingHasPoolerMlmAndNsp) {
  BuildOptions options;
  options.class_name = "BertForPreTraining";
  auto g = build_model(small(), options).graph;
  EXPECT_NE(g.find_tensor("bert.pooler.dense.weight"), nullptr);
  EXPECT_NE(g.find_tensor("cls.seq_relationship.weight"), nullptr);
  EXPECT_NE(g.find_tensor("cls.predictions.bias"), nullptr);
  EXPECT_EQ(node(g, "LM_Head")->out, (Shape{512, 30522}));
  EXPECT_EQ(node(g, "NSP_Head")->out, (Shape{2}));
}

TEST(BertHeads, UntiedDecoderIsSavedButItsBiasStaysTied) {
  BuildOptions options;
  options.class_name = "BertForMaskedLM";
  auto g = build_model(small(R"(, "tie_word_embeddings": false)"), options).graph;
  ASSERT_NE(g.find_tensor("cls.predictions.decoder.weight"), nullptr);
  EXPECT_TRUE(g.find_tensor("cls.predictions.decoder.weight")->saved());
  EXPECT_FALSE(g.find_tensor("cls.predictions.decoder.bias")->saved());
}

TEST(BertHeads, TokenClassificationHasNoPooler) {
  BuildOptions options;
  options.class_name = "BertForTokenClassification";
  auto g = build_model(small(R"(, "num_labels": 9)"), options).graph;
  EXPECT_EQ(g.find_tensor("bert.pooler.dense.weight"), nullptr);
  EXPECT_EQ(node(g, "Classifier")->out, (Shape{512, 9}));
}

TEST(BertAttention, RelativePositionsAddADistanceTable) {
  auto g = build_model(small(R"(, "position_embedding_type": "relative_key_query")")).graph;
  const auto* t = g.find_tensor("encoder.layer.1.attention.self.distance_embedding.weight");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->shape, (Shape{1023, 64}));
}

TEST(BertAttention, CrossAttentionNeedsADecoder) {
  auto dec = build_model(small(R"(, "is_decoder": true, "add_cross_attention": true)")).graph;
  EXPECT_TRUE(dec.forward.ok);
  EXPECT_NE(dec.find_tensor("encoder.layer.0.crossattention.output.LayerNorm.weight"), nullptr);
  EXPECT_NE(node(dec, "Cross_Attention_1"), nullptr);
  auto enc = build_model(small(R"(, "add_cross_attention": true)")).graph;
  EXPECT_FALSE(enc.forward.ok);
}

}  // namespace
