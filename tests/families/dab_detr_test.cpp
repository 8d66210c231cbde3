#include <gtest/gtest.h>

#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(DabDetrFamily, DecoderQueriesAreAnchorBoxes) {
  auto m = build({{"model_type", "dab-detr"}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("query_refpoint_embeddings.weight")->shape, (graph::Shape{300, 4}));
  // The cross-attention's queries and keys concatenate content and sine halves: heads twice as wide as v's.
  const auto& cross = *node(g, "Decoder_Cross_Attention_0")->attention;
  EXPECT_EQ(cross.query_len, 300);
  EXPECT_EQ(cross.kv_len, 625);
  EXPECT_EQ(cross.head_dim, 64);
  EXPECT_FALSE(cross.sdpa);
  // Only the first layer keeps the query-position projection of its cross-attention.
  EXPECT_NE(g.find_tensor("decoder.layers.0.cross_attn.cross_attn_query_pos_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("decoder.layers.1.cross_attn.cross_attn_query_pos_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("decoder.ref_point_head.layers.0.weight")->shape, (graph::Shape{256, 512}));
  // PReLU: one learned slope per feed-forward.
  EXPECT_EQ(g.find_tensor("encoder.layers.5.activation_fn.weight")->shape, (graph::Shape{1}));
  EXPECT_EQ(g.find_tensor("decoder.layers.5.mlp.activation_fn.weight")->shape, (graph::Shape{1}));
  EXPECT_EQ(g.find_tensor("encoder.norm.weight"), nullptr);
}

TEST(DabDetrFamily, FlagsAddModules) {
  auto m = build({{"model_type", "dab-detr"}, {"keep_query_pos", true}, {"normalize_before", true},
                  {"num_patterns", 3}, {"activation_function", "relu"}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_NE(g.find_tensor("decoder.layers.1.cross_attn.cross_attn_query_pos_proj.weight"), nullptr);
  EXPECT_NE(g.find_tensor("encoder.norm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("patterns.weight")->shape, (graph::Shape{3, 256}));
  EXPECT_EQ(node(g, "Decoder_Cross_Attention_0")->attention->query_len, 900);
  EXPECT_EQ(g.find_tensor("encoder.layers.0.activation_fn.weight"), nullptr);
}

TEST(DabDetrFamily, DetectionTiesTheDecoderBoxHeadToThePredictor) {
  auto m = build({{"model_type", "dab-detr"}, {"num_labels", 91}}, "DabDetrForObjectDetection");
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("class_embed.weight")->shape, (graph::Shape{91, 256}));
  EXPECT_EQ(g.find_tensor("bbox_predictor.layers.2.weight")->shape, (graph::Shape{4, 256}));
  const auto* copy = g.find_tensor("model.decoder.bbox_embed.layers.2.weight");
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->tied_to, "bbox_predictor.layers.2.weight");

  auto untied = build({{"model_type", "dab-detr"}, {"tie_word_embeddings", false}}, "DabDetrForObjectDetection");
  const auto* own = untied.graph.find_tensor("model.decoder.bbox_embed.layers.2.weight");
  ASSERT_NE(own, nullptr);
  EXPECT_TRUE(own->tied_to.empty());
}

TEST(DabDetrFamily, BackboneFromATimmBackboneConfig) {
  auto m = build({{"model_type", "dab-detr"},
                  {"backbone_config", {{"model_type", "timm_backbone"}, {"backbone", "resnet18"},
                                       {"out_indices", {1, 2, 3, 4}}}}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("input_projection.weight")->shape, (graph::Shape{256, 512, 1, 1}));
  EXPECT_NE(g.find_tensor("backbone.conv_encoder.model._backbone.layer4.1.bn2.running_var"), nullptr);
}

TEST(DabDetrFamily, RefusesAnchorsThatAreNotBoxes) {
  EXPECT_THROW(build({{"model_type", "dab-detr"}, {"query_dim", 2}}), std::exception);
}

}  // namespace
}  // namespace neurarch
