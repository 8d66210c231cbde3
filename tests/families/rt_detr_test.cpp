#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(RtDetrFamily, HybridEncoderFeedsTheDeformableDecoder) {
  auto m = build({{"model_type", "rt_detr"}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // 640 pixels: stages 2-4 of the ResNet-vd at strides 8, 16, 32; AIFI runs on the last (20 x 20 tokens).
  EXPECT_EQ(node(g, "AIFI_0_Attention_0")->out, (graph::Shape{400, 256}));
  EXPECT_EQ(node(g, "FPN_Concat_1")->out, (graph::Shape{512, 80, 80}));
  EXPECT_EQ(node(g, "PAN_Block_1_Add")->out, (graph::Shape{256, 20, 20}));
  const auto& cross = *node(g, "Decoder_Cross_Attention_0")->deformable;
  EXPECT_EQ(cross.value_len, 80 * 80 + 40 * 40 + 20 * 20);
  // num_queries plus the 2 num_denoising denoising queries of a training step with labels.
  EXPECT_EQ(cross.queries, 300 + 200);
  EXPECT_EQ(cross.levels, 3);
  EXPECT_EQ(cross.reference_coords, 4);
  // Frozen batch norm in the backbone (buffers, no num_batches_tracked); trained BatchNorm2d in the encoder.
  EXPECT_EQ(g.find_tensor("backbone.model.embedder.embedder.0.normalization.weight")->kind, graph::TensorKind::Buffer);
  EXPECT_EQ(g.find_tensor("backbone.model.embedder.embedder.0.normalization.num_batches_tracked"), nullptr);
  EXPECT_EQ(g.find_tensor("encoder.lateral_convs.0.norm.weight")->kind, graph::TensorKind::Parameter);
  // The vd shortcut: average pool, then a stride-1 1x1 convolution.
  EXPECT_EQ(g.find_tensor("backbone.model.encoder.stages.1.layers.0.shortcut.1.convolution.weight")->shape,
            (graph::Shape{512, 256, 1, 1}));
}

TEST(RtDetrFamily, ObjectDetectionHeadsLiveInTheDecoder) {
  auto m = build({{"model_type", "rt_detr"}, {"num_labels", 80}}, "RTDetrForObjectDetection");
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("model.decoder.class_embed.5.weight")->shape, (graph::Shape{80, 256}));
  EXPECT_EQ(g.find_tensor("model.decoder.bbox_embed.5.layers.2.weight")->shape, (graph::Shape{4, 256}));
  EXPECT_EQ(g.find_tensor("class_embed.0.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.denoising_class_embed.weight")->shape, (graph::Shape{81, 256}));
}

TEST(RtDetrFamily, V2TiesTopLevelHeadsToTheDecoders) {
  auto m = build({{"model_type", "rt_detr_v2"}, {"decoder_n_levels", 2}}, "RTDetrV2ForObjectDetection");
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("class_embed.3.weight")->tied_to, "model.decoder.class_embed.3.weight");
  EXPECT_TRUE(g.find_tensor("model.decoder.class_embed.3.weight")->tied_to.empty());
  EXPECT_EQ(g.find_tensor("model.decoder.layers.0.encoder_attn.n_points_scale")->shape, (graph::Shape{8}));
  EXPECT_EQ(node(g, "Decoder_Cross_Attention_0")->deformable->levels, 2);
}

TEST(RtDetrFamily, DFineDecoderHasNoValueProjectionAndFrozenScales) {
  auto m = build({{"model_type", "d_fine"}, {"decoder_n_points", {3, 6, 3}}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("decoder.layers.0.encoder_attn.value_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("decoder.layers.0.encoder_attn.num_points_scale")->shape, (graph::Shape{12}));
  EXPECT_EQ(g.find_tensor("decoder.layers.0.encoder_attn.sampling_offsets.weight")->shape, (graph::Shape{192, 256}));
  const auto& cross = *node(g, "Decoder_Cross_Attention_0")->deformable;
  EXPECT_EQ(cross.points, 6);
  EXPECT_EQ(cross.samples, 12);
  EXPECT_TRUE(g.find_tensor("decoder.reg_scale")->frozen);
  EXPECT_EQ(g.find_tensor("decoder.layers.0.encoder_attn_layer_norm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("decoder.layers.0.gateway.gate.weight")->shape, (graph::Shape{512, 512}));
}

TEST(RtDetrFamily, ResNetVdBasicStagesAlwaysHaveAFirstShortcut) {
  auto m = build({{"model_type", "rt_detr_resnet"},
                  {"layer_type", "basic"},
                  {"hidden_sizes", {64, 128, 256, 512}},
                  {"depths", {2, 2, 2, 2}}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Stage 0 keeps 64 channels and its stride, yet its first layer projects the shortcut.
  EXPECT_EQ(g.find_tensor("encoder.stages.0.layers.0.shortcut.convolution.weight")->shape,
            (graph::Shape{64, 64, 1, 1}));
  EXPECT_NE(g.find_tensor("encoder.stages.1.layers.0.shortcut.1.convolution.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("encoder.stages.1.layers.1.shortcut.convolution.weight"), nullptr);
}

TEST(RtDetrFamily, OnlyItsOwnBackbonesAreModelled) {
  EXPECT_THROW(build({{"model_type", "rt_detr"}, {"backbone_config", {{"model_type", "resnet"}}}}), Error);
  EXPECT_THROW(build({{"model_type", "rt_detr"}, {"use_timm_backbone", true}}), Error);
}

}  // namespace
}  // namespace neurarch
