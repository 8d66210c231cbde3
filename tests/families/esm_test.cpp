#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

Config esm2(const std::string& extra = "") {
  // ESM-2's shape: rotary positions, token dropout, no embedding norm.
  return Config::parse(R"({"model_type": "esm", "vocab_size": 33, "pad_token_id": 1, "hidden_size": 320,
    "num_hidden_layers": 2, "num_attention_heads": 20, "intermediate_size": 1280,
    "position_embedding_type": "rotary", "token_dropout": true, "emb_layer_norm_before": false)" +
                           extra + "}",
                       "config.json");
}

TEST(EsmRotary, NoPositionTableAndOnePersistentInverseFrequencyTable) {
  // transformers 5.24.0 builds both only when position_embedding_type is "absolute" / "rotary" respectively.
  auto g = build_model(esm2()).graph;
  ASSERT_TRUE(g.forward.ok);
  EXPECT_EQ(g.find_tensor("embeddings.position_embeddings.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("encoder.layer.1.attention.self.rotary_embeddings.inv_freq"), nullptr);
  const auto* inv = g.find_tensor("rotary_embeddings.inv_freq");
  ASSERT_NE(inv, nullptr);
  EXPECT_EQ(inv->shape, (neurarch::graph::Shape{8}));
  EXPECT_TRUE(inv->saved());
  EXPECT_EQ(g.find_tensor("contact_head.regression.weight")->shape, (neurarch::graph::Shape{1, 40}));
  bool rotary_attention = false;
  for (const auto& n : g.nodes)
    if (n.attention && n.attention->rotary) rotary_attention = true;
  EXPECT_TRUE(rotary_attention);
}

TEST(EsmEmbeddings, LayerNormBeforeTheStackOnlyWhenAsked) {
  EXPECT_EQ(build_model(esm2()).graph.find_tensor("embeddings.layer_norm.weight"), nullptr);
  auto g = build_model(esm2(R"(, "emb_layer_norm_before": true)")).graph;
  EXPECT_NE(g.find_tensor("embeddings.layer_norm.weight"), nullptr);
}

TEST(EsmHeads, MaskedLmDecoderHasNoBiasOfItsOwn) {
  BuildOptions options;
  options.class_name = "EsmForMaskedLM";
  auto g = build_model(esm2(), options).graph;
  EXPECT_EQ(g.find_tensor("lm_head.decoder.bias"), nullptr);
  EXPECT_NE(g.find_tensor("lm_head.bias"), nullptr);
  EXPECT_FALSE(g.find_tensor("lm_head.decoder.weight")->saved());
  EXPECT_EQ(g.find_tensor("esm.pooler.dense.weight"), nullptr);
}

}  // namespace

namespace {

// facebook/esm2_t33_650M_UR50D's config.json (the published fields that shape the model).
TEST(EsmRealConfigs, Esm2_650MCountsItsArchitecture) {
  auto c = neurarch::Config::parse(R"({"architectures": ["EsmForMaskedLM"], "attention_probs_dropout_prob": 0.0,
    "emb_layer_norm_before": false, "hidden_act": "gelu", "hidden_dropout_prob": 0.0, "hidden_size": 1280,
    "intermediate_size": 5120, "is_folding_model": false, "layer_norm_eps": 1e-05, "mask_token_id": 32,
    "max_position_embeddings": 1026, "model_type": "esm", "num_attention_heads": 20, "num_hidden_layers": 33,
    "pad_token_id": 1, "position_embedding_type": "rotary", "token_dropout": true, "vocab_size": 33})",
                                   "config.json");
  auto g = neurarch::model::build_model(c).graph;
  ASSERT_TRUE(g.forward.ok);
  // Per layer: q/k/v/o 4 x (1280^2 + 1280), two LayerNorms and the 5120-wide FFN; plus 33 x 1280 embeddings,
  // 32 inv_freq entries, the final norm, contact_head (33 x 20 + 1) and the LM head (dense, norm, bias). The Hub
  // file, saved by transformers 4.x, is 1,313,280 + 32 x 32 larger: an unused [1026, 1280] position table and an
  // inv_freq per attention, which transformers 5 ignores on load.
  EXPECT_EQ(g.saved_scalars(), 651043286);
}

}  // namespace
