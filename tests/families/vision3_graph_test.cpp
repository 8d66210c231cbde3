// Shapes and forward checks of the vision III families (ConvNeXt V2, DINOv3 ConvNeXt, Swin V2, the video
// transformers, BiT, ViT-hybrid, RegNet), by hand from the reference forward passes.
#include <gtest/gtest.h>

#include "support/image_model.hpp"

namespace neurarch {
namespace {

using graph::Shape;
using test_support::build;
using test_support::node;

TEST(Vision3Graph, ConvNextV2PutsGrnBetweenThePointwiseLayers) {
  auto m = build({{"model_type", "convnextv2"}}, "ConvNextV2ForImageClassification");
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(node(g, "FFN_Up_0")->out, (Shape{56, 56, 384}));
  EXPECT_EQ(node(g, "GRN_0")->inputs.front(), node(g, "FFN_Up_0")->index);
  EXPECT_EQ(node(g, "FFN_Down_0")->inputs.front(), node(g, "GRN_0")->index);
  EXPECT_EQ(node(g, "Add_17_1")->out, (Shape{768, 7, 7}));
  EXPECT_EQ(g.find_tensor("convnextv2.encoder.stages.0.layers.0.layer_scale_parameter"), nullptr);
}

TEST(Vision3Graph, Dinov3ConvNextPrependsThePooledToken) {
  auto m = build({{"model_type", "dinov3_convnext"}});
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Final_LayerNorm")->out, (Shape{1 + 7 * 7, 768}));
  // gamma exists whatever layer_scale_init_value says.
  auto zero = build({{"model_type", "dinov3_convnext"}, {"layer_scale_init_value", 0.0}});
  EXPECT_NE(zero.graph.find_tensor("stages.3.layers.2.gamma"), nullptr);
}

TEST(Vision3Graph, Swinv2IsPostNormCosineWindowAttention) {
  auto m = build({{"model_type", "swinv2"}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto* attn = node(g, "Attention_0");
  EXPECT_EQ(attn->attention->query_len, 49);
  EXPECT_FALSE(attn->attention->sdpa);
  // Post-norm: the first LayerNorm reads the attention output.
  EXPECT_EQ(node(g, "LayerNorm_0_1")->inputs.front(), attn->index);
  EXPECT_EQ(g.find_tensor("encoder.layers.0.blocks.0.attention.self.key.bias"), nullptr);
  EXPECT_EQ(node(g, "Merge_LayerNorm_0")->out, (Shape{28 * 28, 192}));
  EXPECT_EQ(node(g, "Final_LayerNorm")->out, (Shape{49, 768}));
}

TEST(Vision3Graph, VideoMaeTokensFollowTubelets) {
  auto m = build({{"model_type", "videomae"}});
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(m.graph.input_shape, (Shape{16, 3, 224, 224}));
  EXPECT_EQ(node(m.graph, "Tubelet_Embed")->out, (Shape{8 * 14 * 14, 768}));
  EXPECT_NE(m.graph.find_tensor("encoder.layer.0.attention.attention.q_bias"), nullptr);
  auto no_bias = build({{"model_type", "videomae"}, {"qkv_bias", false}});
  EXPECT_EQ(no_bias.graph.find_tensor("encoder.layer.0.attention.attention.q_bias"), nullptr);
  auto other = build({{"model_type", "videomae"}}, "", 448);
  EXPECT_FALSE(other.graph.forward.ok);
}

TEST(Vision3Graph, VivitCountsEveryTubeletPlusCls) {
  auto m = build({{"model_type", "vivit"}, {"tubelet_size", {4, 16, 16}}});
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Tubelet_Embed")->out, (Shape{1 + 8 * 14 * 14, 768}));
  EXPECT_EQ(m.graph.find_tensor("embeddings.position_embeddings")->shape, (Shape{1, 1 + 8 * 14 * 14, 768}));
}

TEST(Vision3Graph, TimesformerDividesSpaceAndTime) {
  auto m = build({{"model_type", "timesformer"}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(node(g, "Temporal_Attention_0")->attention->query_len, 8);
  EXPECT_EQ(node(g, "Temporal_Attention_0")->out, (Shape{8 * 196, 768}));
  EXPECT_EQ(node(g, "Attention_0")->attention->query_len, 197);
  EXPECT_EQ(node(g, "Attention_0")->out, (Shape{8 * 197, 768}));
  EXPECT_EQ(node(g, "Final_LayerNorm")->out, (Shape{1 + 8 * 196, 768}));
  auto joint = build({{"model_type", "timesformer"}, {"attention_type", "joint_space_time"}});
  EXPECT_EQ(node(joint.graph, "Attention_0")->attention->query_len, 1 + 8 * 196);
  EXPECT_EQ(joint.graph.find_tensor("encoder.layer.0.temporal_dense.weight"), nullptr);
  auto space = build({{"model_type", "timesformer"}, {"attention_type", "space_only"}});
  EXPECT_EQ(space.graph.find_tensor("embeddings.time_embeddings"), nullptr);
  EXPECT_THROW(build({{"model_type", "timesformer"}, {"attention_type", "axial"}}), std::exception);
}

TEST(Vision3Graph, BitDownsamplesToAStrideOf32) {
  auto m = build({{"model_type", "bit"}});
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Stem_MaxPool")->out, (Shape{64, 56, 56}));
  EXPECT_EQ(node(m.graph, "Final_GroupNorm")->out, (Shape{2048, 7, 7}));
  // output_stride 16 dilates the last stage instead of striding.
  auto dilated = build({{"model_type", "bit"}, {"output_stride", 16}});
  EXPECT_EQ(node(dilated.graph, "Final_GroupNorm")->out, (Shape{2048, 14, 14}));
}

TEST(Vision3Graph, VitHybridNeedsTheImageItsPositionTableWasSizedFor) {
  // The default config sizes positions for a 24x24 map, which a 224-pixel image does not give.
  auto m = build({{"model_type", "vit-hybrid"}});
  EXPECT_FALSE(m.graph.forward.ok);
  auto fitted = build({{"model_type", "vit-hybrid"}, {"image_size", 384}});
  ASSERT_TRUE(fitted.graph.forward.ok) << fitted.graph.forward.reason;
  EXPECT_EQ(node(fitted.graph, "Patch_Embed")->out, (Shape{577, 768}));
}

TEST(Vision3Graph, RegNetSqueezeExcitesYLayersOnly) {
  auto y = build({{"model_type", "regnet"}});
  ASSERT_TRUE(y.graph.forward.ok) << y.graph.forward.reason;
  EXPECT_EQ(node(y.graph, "Global_AvgPool")->out, (Shape{1088, 1, 1}));
  EXPECT_EQ(node(y.graph, "SqueezeExcite_0_Reduce")->out, (Shape{8, 1, 1}));
  auto x = build({{"model_type", "regnet"}, {"layer_type", "x"}});
  EXPECT_EQ(node(x.graph, "SqueezeExcite_0"), nullptr);
  EXPECT_NE(x.graph.find_tensor("encoder.stages.0.layers.0.layer.2.normalization.weight"), nullptr);
}

TEST(Vision3Graph, EfficientNetB0Reaches7x7) {
  auto m = build({{"model_type", "efficientnet"}, {"width_coefficient", 1.0}, {"depth_coefficient", 1.0},
                  {"hidden_dim", 1280}, {"image_size", 224}});
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Stem_Conv")->out, (Shape{32, 112, 112}));
  EXPECT_EQ(node(m.graph, "Top_BatchNorm")->out, (Shape{1280, 7, 7}));
  // 16 blocks; only repeated blocks (not a stage's first) add their input back.
  EXPECT_NE(node(m.graph, "Project_Conv_15"), nullptr);
  EXPECT_EQ(node(m.graph, "Add_0"), nullptr);
  EXPECT_NE(node(m.graph, "Add_2"), nullptr);
  auto mismatched = build({{"model_type", "efficientnet"}, {"width_coefficient", 1.0}, {"hidden_dim", 2560}});
  EXPECT_FALSE(mismatched.graph.forward.ok);
}

TEST(Vision3Graph, MobileNetsReachStride32UnlessDilated) {
  auto v2 = build({{"model_type", "mobilenet_v2"}});
  ASSERT_TRUE(v2.graph.forward.ok) << v2.graph.forward.reason;
  EXPECT_EQ(node(v2.graph, "Head_BatchNorm")->out, (Shape{1280, 7, 7}));
  EXPECT_NE(node(v2.graph, "Add_1"), nullptr);  // 24 -> 24 at stride 1
  EXPECT_EQ(node(v2.graph, "Add_0"), nullptr);  // 16 -> 24
  auto dilated = build({{"model_type", "mobilenet_v2"}, {"output_stride", 16}});
  EXPECT_EQ(node(dilated.graph, "Head_BatchNorm")->out, (Shape{1280, 14, 14}));
  auto thin = build({{"model_type", "mobilenet_v2"}, {"depth_multiplier", 0.35}});
  EXPECT_EQ(node(thin.graph, "Head_BatchNorm")->out[0], 1280);  // finegrained_output keeps the head wide
  auto v1 = build({{"model_type", "mobilenet_v1"}});
  ASSERT_TRUE(v1.graph.forward.ok) << v1.graph.forward.reason;
  EXPECT_EQ(node(v1.graph, "Pointwise_12_BatchNorm")->out, (Shape{1024, 7, 7}));
  auto half = build({{"model_type", "mobilenet_v1"}, {"depth_multiplier", 0.5}});
  EXPECT_EQ(node(half.graph, "Pointwise_12_BatchNorm")->out, (Shape{512, 7, 7}));
}

TEST(Vision3Graph, PoolFormerMixesTokensByPooling) {
  auto m = build({{"model_type", "poolformer"}}, "PoolFormerForImageClassification");
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Patch_Embed_0")->out, (Shape{64, 56, 56}));
  EXPECT_EQ(node(m.graph, "AvgPool_0")->out, (Shape{64, 56, 56}));
  EXPECT_EQ(node(m.graph, "Final_GroupNorm")->out, (Shape{512, 7, 7}));
  auto plain = build({{"model_type", "poolformer"}, {"use_layer_scale", false}});
  EXPECT_EQ(plain.graph.find_tensor("encoder.block.0.0.layer_scale_1"), nullptr);
}

TEST(Vision3Graph, PvtV2ReducesKeysAndValues) {
  auto m = build({{"model_type", "pvt_v2"}});
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Attention_0")->attention->kv_len, 7 * 7);  // 56x56 reduced 8x
  EXPECT_EQ(node(m.graph, "FFN_DWConv_0")->out, (Shape{256, 56, 56}));
  auto linear = build({{"model_type", "pvt_v2"}, {"linear_attention", true}});
  ASSERT_TRUE(linear.graph.forward.ok) << linear.graph.forward.reason;
  EXPECT_EQ(node(linear.graph, "Attention_7")->attention->kv_len, 49);
  EXPECT_EQ(linear.graph.find_tensor("encoder.layers.3.blocks.1.attention.spatial_reduction.weight")->shape,
            (Shape{256, 256, 1, 1}));
}

TEST(Vision3Graph, PvtAddsTheClsTokenInTheLastStage) {
  auto m = build({{"model_type", "pvt"}});
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Learned_Pos_Embed_0")->out, (Shape{56 * 56, 64}));
  EXPECT_EQ(node(m.graph, "Learned_Pos_Embed_3")->out, (Shape{1 + 7 * 7, 512}));
  EXPECT_EQ(node(m.graph, "Attention_0")->attention->kv_len, 7 * 7);
  EXPECT_EQ(node(m.graph, "Final_LayerNorm")->out, (Shape{50, 512}));
  EXPECT_EQ(node(m.graph, "FFN_DWConv_0"), nullptr);
}

TEST(Vision3Graph, DefaultConfigsRunForward) {
  // ViT-hybrid's default is excluded: its position table does not fit its image (tested above).
  for (const char* type : {"convnextv2", "dinov3_convnext", "swinv2", "videomae", "vivit", "timesformer", "bit",
                           "regnet", "efficientnet", "mobilenet_v2", "mobilenet_v1", "poolformer", "pvt_v2", "pvt",
                           "van", "levit", "cvt", "focalnet", "hiera"}) {
    auto m = build({{"model_type", type}});
    EXPECT_TRUE(m.graph.forward.ok) << type << ": " << m.graph.forward.reason;
    EXPECT_GT(m.graph.parameter_count(), 0) << type;
  }
  auto van = build({{"model_type", "van"}});
  EXPECT_EQ(node(van.graph, "LKA_DepthWiseDilated_0")->out, (Shape{64, 56, 56}));
  EXPECT_EQ(node(van.graph, "Final_LayerNorm")->out, (Shape{512}));
}

TEST(Vision3Graph, LevitSubsamplesBetweenStages) {
  auto m = build({{"model_type", "levit"}}, "LevitForImageClassification");
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Stem_BatchNorm_4")->out, (Shape{128, 14, 14}));
  const auto* sub = node(m.graph, "Subsample_Attention_4");
  EXPECT_EQ(sub->attention->query_len, 49);
  EXPECT_EQ(sub->attention->kv_len, 196);
  EXPECT_FALSE(sub->attention->sdpa);
  EXPECT_EQ(node(m.graph, "Subsample_Projection_4_BatchNorm")->out, (Shape{49, 256}));
  auto other = build({{"model_type", "levit"}}, "", 256);
  EXPECT_FALSE(other.graph.forward.ok);
}

TEST(Vision3Graph, CvtProjectsKeysAndValuesThroughStridedConvolutions) {
  auto m = build({{"model_type", "cvt"}}, "CvtForImageClassification");
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Attention_0")->attention->query_len, 56 * 56);
  EXPECT_EQ(node(m.graph, "Attention_0")->attention->kv_len, 28 * 28);
  EXPECT_EQ(node(m.graph, "Attention_3")->attention->query_len, 1 + 14 * 14);  // the CLS token joins in stage 2
  EXPECT_EQ(node(m.graph, "Attention_3")->attention->kv_len, 1 + 7 * 7);
  auto avg = build({{"model_type", "cvt"}, {"qkv_projection_method", {"avg", "avg", "avg"}}});
  ASSERT_TRUE(avg.graph.forward.ok) << avg.graph.forward.reason;
  EXPECT_EQ(avg.graph.find_tensor(
                "encoder.stages.0.layers.0.attention.attention.convolution_projection_key.convolution_projection."
                "convolution.weight"),
            nullptr);
}

TEST(Vision3Graph, FocalNetModulatesWithGrowingKernels) {
  auto m = build({{"model_type", "focalnet"}}, "FocalNetForImageClassification");
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Modulation_In_0")->out, (Shape{56 * 56, 2 * 96 + 3}));
  EXPECT_EQ(node(m.graph, "Focal_Conv_0_1")->spatial->kernel_h, 5);
  EXPECT_EQ(node(m.graph, "Downsample_LayerNorm_2")->out, (Shape{7 * 7, 768}));
  EXPECT_EQ(node(m.graph, "Final_LayerNorm")->out, (Shape{49, 768}));
  auto scaled = build({{"model_type", "focalnet"}, {"use_layerscale", true}});
  EXPECT_NE(scaled.graph.find_tensor("encoder.stages.3.layers.1.gamma_2"), nullptr);
}

TEST(Vision3Graph, HieraPoolsQueriesAtStageBoundaries) {
  auto m = build({{"model_type", "hiera"}}, "HieraForImageClassification");
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Learned_Pos_Embed")->out, (Shape{3136, 96}));
  // Stage 0 attends inside 64-token mask units; layer 2 opens stage 1, pools its queries by 4 and still uses
  // mask units (16 tokens after pooling) because stage 0 did.
  EXPECT_EQ(node(m.graph, "Attention_0")->attention->kv_len, 64);
  EXPECT_EQ(node(m.graph, "Attention_2")->out, (Shape{784, 192}));
  EXPECT_EQ(node(m.graph, "Attention_2")->attention->query_len, 16);
  EXPECT_EQ(node(m.graph, "Residual_Pool_2")->out, (Shape{784, 192}));
  // Stage 3 attends globally over 49 tokens.
  EXPECT_EQ(node(m.graph, "Attention_23")->attention->kv_len, 49);
  EXPECT_EQ(node(m.graph, "Pooler_LayerNorm")->out, (Shape{768}));
}

}  // namespace
}  // namespace neurarch
