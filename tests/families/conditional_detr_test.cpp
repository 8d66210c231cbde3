#include <gtest/gtest.h>

#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(ConditionalDetrFamily, DecoderAttendsWithReferencePoints) {
  auto m = build({{"model_type", "conditional_detr"}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto& cross = *node(g, "Decoder_Cross_Attention_0")->attention;
  EXPECT_EQ(cross.query_len, 300);
  EXPECT_EQ(cross.kv_len, 625);
  EXPECT_FALSE(cross.sdpa);
  EXPECT_NE(g.find_tensor("decoder.layers.0.ca_qpos_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("decoder.layers.1.ca_qpos_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("decoder.ref_point_head.layers.1.weight")->shape, (graph::Shape{2, 256}));
  // query_scale runs from layer 1 on; layer 1 owns it.
  EXPECT_EQ(node(g, "Query_Scale_0_1"), nullptr);
  ASSERT_NE(node(g, "Query_Scale_2_2"), nullptr);
  EXPECT_EQ(node(g, "Reference_Point_MLP_2")->out, (graph::Shape{300, 2}));
}

TEST(ConditionalDetrFamily, ObjectDetectionHasNoNoObjectClass) {
  auto m = build({{"model_type", "conditional_detr"}, {"num_labels", 91}}, "ConditionalDetrForObjectDetection");
  EXPECT_EQ(m.graph.find_tensor("class_labels_classifier.weight")->shape, (graph::Shape{91, 256}));
  EXPECT_EQ(m.graph.find_tensor("bbox_predictor.layers.2.weight")->shape, (graph::Shape{4, 256}));
  EXPECT_NE(m.graph.find_tensor("model.decoder.query_scale.layers.1.weight"), nullptr);
}

TEST(ConditionalDetrFamily, SingleLayerDecoderStillStoresQueryScale) {
  auto m = build({{"model_type", "conditional_detr"}, {"decoder_layers", 1}});
  EXPECT_NE(m.graph.find_tensor("decoder.query_scale.layers.0.weight"), nullptr);
  EXPECT_EQ(node(m.graph, "Query_Scale_1_1"), nullptr);
}

}  // namespace
}  // namespace neurarch
