#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(DptFamily, BaseModelIsTheVitWithAPooler) {
  auto m = build({{"model_type", "dpt"}});
  const auto& g = m.graph;
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 384, 384}));
  EXPECT_EQ(node(g, "Patch_Embed")->out, (graph::Shape{577, 768}));
  EXPECT_EQ(node(g, "Neck_Conv_0"), nullptr);
  EXPECT_EQ(g.find_tensor("pooler.dense.weight")->shape, (graph::Shape{768, 768}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(DptFamily, DepthHeadClimbsBackToTheImage) {
  auto m = build({{"model_type", "dpt"}}, "DPTForDepthEstimation");
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("pooler.dense.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("dpt.pooler.dense.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("neck.reassemble_stage.readout_projects.0.0.weight")->shape, (graph::Shape{768, 1536}));
  EXPECT_EQ(g.find_tensor("neck.reassemble_stage.layers.0.resize.weight")->shape, (graph::Shape{96, 96, 4, 4}));
  EXPECT_EQ(g.find_tensor("neck.reassemble_stage.layers.2.resize.weight"), nullptr);  // factor 1: identity
  EXPECT_EQ(g.find_tensor("neck.reassemble_stage.layers.3.resize.weight")->shape, (graph::Shape{768, 768, 3, 3}));
  EXPECT_NE(g.find_tensor("neck.fusion_stage.layers.0.residual_layer1.convolution1.bias"), nullptr);
  // Grid 24: the four maps at 96, 48, 24, 12, fused back up to 192, then the head's x2.
  EXPECT_EQ(node(g, "Neck_Conv_0")->out, (graph::Shape{256, 96, 96}));
  EXPECT_EQ(node(g, "Reassemble_Resize_0")->out, (graph::Shape{96 * 16, 24, 24}));  // the per-pixel matmul
  EXPECT_EQ(node(g, "Reassemble_Projection_1")->out, (graph::Shape{192, 24, 24}));
  EXPECT_EQ(node(g, "Reassemble_Resize_3")->out, (graph::Shape{768, 12, 12}));
  EXPECT_EQ(node(g, "Fusion_0_Upsample")->out, (graph::Shape{256, 24, 24}));
  EXPECT_EQ(node(g, "Fusion_3_Projection")->out, (graph::Shape{256, 192, 192}));
  EXPECT_EQ(g.find_tensor("head.head.4.weight")->shape, (graph::Shape{1, 32, 1, 1}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{384, 384}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(DptFamily, BatchNormResidualsDropTheirBiases) {
  auto m = build({{"model_type", "dpt"}, {"use_batch_norm_in_fusion_residual", true}, {"readout_type", "add"}},
                 "DPTForDepthEstimation");
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("neck.fusion_stage.layers.1.residual_layer2.convolution1.bias"), nullptr);
  EXPECT_NE(g.find_tensor("neck.fusion_stage.layers.0.residual_layer1.batch_norm2.running_var"), nullptr);
  EXPECT_EQ(g.find_tensor("neck.reassemble_stage.readout_projects.0.0.weight"), nullptr);
}

TEST(DptFamily, SegmentationHasAnAuxiliaryHead) {
  auto m = build({{"model_type", "dpt"}, {"num_labels", 150}}, "DPTForSemanticSegmentation");
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("head.head.4.weight")->shape, (graph::Shape{150, 256, 1, 1}));
  EXPECT_EQ(g.find_tensor("auxiliary_head.head.1.running_mean")->shape, (graph::Shape{256}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{150, 384, 384}));
  auto no_aux = build({{"model_type", "dpt"}, {"use_auxiliary_head", false}}, "DPTForSemanticSegmentation");
  EXPECT_EQ(no_aux.graph.find_tensor("auxiliary_head.head.0.weight"), nullptr);
}

TEST(DptFamily, HybridAndExternalBackbonesAreRefused) {
  EXPECT_THROW(build({{"model_type", "dpt"}, {"is_hybrid", true}}), std::exception);
  EXPECT_THROW(build({{"model_type", "dpt"}, {"readout_type", "mean"}}, "DPTForDepthEstimation"), std::exception);
}

}  // namespace
}  // namespace neurarch
