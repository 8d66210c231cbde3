// Swin2SR, SuperPoint, HGNet-V2, TextNet, SwiftFormer, EfficientFormer, SegGPT, EoMT and MGP-STR: output shapes and the configurations they refuse.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(Swin2SrFamily, UpsamplersScaleTheImage) {
  auto shuffle = build({{"model_type", "swin2sr"}, {"upscale", 4}}, "Swin2SRForImageSuperResolution");
  EXPECT_TRUE(shuffle.graph.forward.ok) << shuffle.graph.forward.reason;
  EXPECT_EQ(shuffle.graph.nodes.back().out, (graph::Shape{3, 256, 256}));
  auto direct = build({{"model_type", "swin2sr"}, {"upsampler", "pixelshuffledirect"}},
                      "Swin2SRForImageSuperResolution");
  EXPECT_EQ(direct.graph.nodes.back().out, (graph::Shape{3, 128, 128}));
  EXPECT_THROW(build({{"model_type", "swin2sr"}, {"upsampler", "pixelshuffle_aux"}}, "Swin2SRForImageSuperResolution"),
               Error);
  // Six stages of six layers at full resolution in 8x8 windows.
  EXPECT_EQ(node(shuffle.graph, "Attention_35")->attention->query_len, 64);
}

TEST(SuperPointFamily, EncoderDownsamplesByEight) {
  auto m = build({{"model_type", "superpoint"}});
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Score_Conv_B")->out, (graph::Shape{65, 60, 60}));
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{256, 60, 60}));
}

TEST(HgnetV2Family, LightStagesAndTheClassifier) {
  auto m = build({{"model_type", "hgnet_v2"}}, "HGNetV2ForImageClassification");
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(m.graph.find_tensor("encoder.stages.2.blocks.0.layers.0.conv2.convolution.weight")->shape,
            (graph::Shape{192, 1, 5, 5}));
  EXPECT_EQ(node(m.graph, "Stage_3_Block_0_Excitation_BatchNorm")->out, (graph::Shape{2048, 7, 7}));
}

TEST(TextNetFamily, RepBranchesFollowTheKernel) {
  auto m = build({{"model_type", "textnet"}});
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  // Stage 1, layer 1 is a 1x3 kernel. The reference keys the vertical branch on the kernel's width and the
  // horizontal one on its height: a (1, 1) vertical conv and no horizontal one; an identity BatchNorm (same width,
  // stride 1).
  EXPECT_EQ(g.find_tensor("encoder.stages.1.stage.1.main_conv.weight")->shape, (graph::Shape{128, 128, 1, 3}));
  EXPECT_EQ(g.find_tensor("encoder.stages.1.stage.1.vertical_conv.weight")->shape, (graph::Shape{128, 128, 1, 1}));
  EXPECT_EQ(g.find_tensor("encoder.stages.1.stage.1.horizontal_conv.weight"), nullptr);
  EXPECT_NE(g.find_tensor("encoder.stages.1.stage.1.rbr_identity.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("encoder.stages.1.stage.0.rbr_identity.weight"), nullptr);  // stride 2
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{512, 2, 2}));
}

TEST(SwiftFormerFamily, AdditiveAttentionEndsEachStage) {
  auto m = build({{"model_type", "swiftformer"}}, "SwiftFormerForImageClassification");
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  // Stage 0 (3 blocks): two conv encoders, then the encoder block; the downsample sits between stages in the list.
  EXPECT_NE(g.find_tensor("swiftformer.encoder.network.0.blocks.2.attn.w_g"), nullptr);
  EXPECT_EQ(g.find_tensor("swiftformer.encoder.network.0.blocks.1.attn.w_g"), nullptr);
  EXPECT_EQ(g.find_tensor("swiftformer.encoder.network.1.proj.weight")->shape, (graph::Shape{56, 48, 3, 3}));
  EXPECT_EQ(node(g, "Stage_3_Block_3_Query")->out, (graph::Shape{7 * 7, 220}));
  EXPECT_FALSE(node(g, "Stage_3_Block_3_Query")->attention.has_value());  // linear in the tokens
  EXPECT_NE(g.find_tensor("dist_head.weight"), nullptr);
}

TEST(EfficientFormerFamily, Meta3DAttentionNeedsItsResolution) {
  auto m = build({{"model_type", "efficientformer"}}, "EfficientFormerForImageClassification");
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(node(g, "Meta3D_0_Attention")->out, (graph::Shape{49, 8 * 128}));
  EXPECT_EQ(node(g, "Meta3D_0_Attention")->attention->head_dim, 32);
  // Downsamples sit between the stages in intermediate_stages: stage 1's blocks are entry 2.
  EXPECT_NE(g.find_tensor("efficientformer.encoder.intermediate_stages.2.meta4D_layers.blocks.1.layer_scale_2"),
            nullptr);
  auto larger = build({{"model_type", "efficientformer"}}, "", 320);
  EXPECT_FALSE(larger.graph.forward.ok);  // a 10x10 map against the 7x7 bias table
}

TEST(SegGptFamily, TwoSequencesUntilTheMerge) {
  auto m = build({{"model_type", "seggpt"}}, "SegGptForImageSegmentation");
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.inputs.size(), 3U);
  // Layers 0-2 carry the image and the prompt stacks (2 x 56 x 28 tokens), each attending alone; then one.
  EXPECT_EQ(node(g, "Attention_2")->out, (graph::Shape{2 * 1568, 1024}));
  EXPECT_EQ(node(g, "Attention_2")->attention->kv_len, 1568);
  EXPECT_EQ(node(g, "Attention_3")->out, (graph::Shape{1568, 1024}));
  EXPECT_EQ(g.find_tensor("encoder.layers.0.attention.rel_pos_h"), nullptr);  // under "model." in this class
  EXPECT_EQ(g.find_tensor("model.encoder.layers.0.attention.rel_pos_h")->shape, (graph::Shape{111, 64}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{3, 896, 448}));
}

TEST(EomtFamily, QueriesJoinBeforeTheLastBlocks) {
  auto m = build({{"model_type", "eomt"}});
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(node(g, "Attention_19")->out, (graph::Shape{5 + 1600, 1024}));
  EXPECT_EQ(node(g, "Attention_20")->out, (graph::Shape{200 + 5 + 1600, 1024}));
  // One prediction before each of the last four layers and one at the end, on shared weights.
  EXPECT_NE(node(g, "Masked_Prediction_3_Mask_Logits"), nullptr);
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{200, 160, 160}));
  auto other = build({{"model_type", "eomt"}}, "", 512);
  EXPECT_FALSE(other.graph.forward.ok);
}

TEST(MgpStrFamily, ThreeVocabulariesOverTheSameSlots) {
  auto m = build({{"model_type", "mgp-str"}}, "MgpstrForSceneTextRecognition");
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(node(g, "Patch_Embed")->out, (graph::Shape{1 + 8 * 32, 768}));
  EXPECT_EQ(node(g, "Head_char")->out, (graph::Shape{27, 38}));
  EXPECT_EQ(node(g, "Head_wp")->out, (graph::Shape{27, 30522}));
  auto distilled = build({{"model_type", "mgp-str"}, {"distilled", true}});
  EXPECT_FALSE(distilled.graph.forward.ok);
}

}  // namespace
}  // namespace neurarch
