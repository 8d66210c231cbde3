#include <string>

#include <gtest/gtest.h>

#include "plan/memory.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(DetrFamily, DefaultShapesAt800Pixels) {
  auto m = build({{"model_type", "detr"}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 800, 800}));
  EXPECT_EQ(node(g, "Stem_MaxPool")->out, (graph::Shape{64, 200, 200}));
  EXPECT_EQ(node(g, "Add_15")->out, (graph::Shape{2048, 25, 25}));
  EXPECT_EQ(node(g, "Input_Projection")->out, (graph::Shape{256, 25, 25}));
  const auto& self = *node(g, "Attention_0")->attention;
  EXPECT_EQ(self.query_len, 625);
  EXPECT_EQ(self.kv_len, 625);
  EXPECT_FALSE(self.sdpa);  // DetrAttention has only the eager path
  const auto& cross = *node(g, "Decoder_Cross_Attention_5")->attention;
  EXPECT_EQ(cross.query_len, 100);
  EXPECT_EQ(cross.kv_len, 625);
  EXPECT_EQ(node(g, "Decoder_Final_LayerNorm")->out, (graph::Shape{100, 256}));
  // Sine positions have no parameters; the frozen batch norms keep theirs in buffers.
  EXPECT_TRUE(node(g, "Sine_Position_Embedding")->tensors.empty());
  EXPECT_EQ(g.find_tensor("backbone.conv_encoder.model.bn1.weight")->kind, graph::TensorKind::Buffer);
  EXPECT_EQ(g.find_tensor("backbone.conv_encoder.model.bn1.num_batches_tracked"), nullptr);
  EXPECT_EQ(g.parameter_count(), 41'368'512);  // the ground truth's total_parameters
}

TEST(DetrFamily, FrozenBatchNormsTrainNothingAndKeepNoStatistics) {
  auto m = build({{"model_type", "detr"}});
  const auto& g = m.graph;
  plan::MemoryModel memory(g, plan::Setup{}, plan::default_runtime());
  // 53 frozen batch norms hold 106,240 buffer scalars: stored, never trained.
  EXPECT_EQ(g.saved_scalars() - g.parameter_count(), 106'240);
  EXPECT_EQ(memory.trainable_parameters(), g.parameter_count() - g.frozen_parameter_count());
  // layer4's last frozen batch norm keeps only the fp32 product its ReLU reads, no input or batch statistics.
  const auto* bn = node(g, "BatchNorm_15_2");
  ASSERT_NE(bn, nullptr);
  std::int64_t kept = memory.activations().nodes.at(static_cast<std::size_t>(bn->index)).bytes_per_sample();
  EXPECT_EQ(kept, 512 * 25 * 25 * 4);
}

TEST(DetrFamily, TimmStemAndLayer1AreFrozenLikeTheReference) {
  // DetrConvEncoder: requires_grad_(False) on every backbone parameter whose name lacks layer2/3/4.
  auto m = build({{"model_type", "detr"}});
  const auto& g = m.graph;
  EXPECT_TRUE(g.find_tensor("backbone.conv_encoder.model.conv1.weight")->frozen);
  EXPECT_TRUE(g.find_tensor("backbone.conv_encoder.model.layer1.0.downsample.0.weight")->frozen);
  EXPECT_TRUE(g.find_tensor("backbone.conv_encoder.model.layer1.2.conv3.weight")->frozen);
  EXPECT_FALSE(g.find_tensor("backbone.conv_encoder.model.layer2.0.conv1.weight")->frozen);
  EXPECT_FALSE(g.find_tensor("input_projection.weight")->frozen);
  // Stem 64 x 3 x 7 x 7; layer1: 64->64->64->256 bottlenecks (the first with a 64->256 downsample).
  const std::int64_t layer1 = (4096 + 36864 + 16384 + 16384) + 2 * (16384 + 36864 + 16384);
  EXPECT_EQ(g.frozen_parameter_count(), 9408 + layer1);
  plan::MemoryModel memory(g, plan::Setup{}, plan::default_runtime());
  EXPECT_EQ(memory.trainable_parameters(), g.parameter_count() - 9408 - layer1);
  // Nothing upstream of layer2's first convolution is recorded by autograd; that convolution keeps its input.
  const auto& acts = memory.activations().nodes;
  const auto kept = [&](const std::string& tensor) {
    return acts.at(static_cast<std::size_t>(g.find_tensor(tensor)->node)).bytes_per_sample();
  };
  EXPECT_EQ(kept("backbone.conv_encoder.model.conv1.weight"), 0);
  EXPECT_EQ(kept("backbone.conv_encoder.model.layer1.2.conv3.weight"), 0);
  EXPECT_EQ(kept("backbone.conv_encoder.model.layer2.0.conv1.weight"), 256 * 200 * 200 * 2);
}

TEST(DetrFamily, HuggingFaceResNetBackboneIsFrozenWhole) {
  // ResNetBackbone names its stages "encoder.stages.N", never the "stage.N" the reference spares.
  auto m = build({{"model_type", "detr"}, {"use_timm_backbone", false}, {"backbone", nullptr},
                  {"backbone_kwargs", nullptr}});
  const auto& g = m.graph;
  std::int64_t backbone = 0;
  for (const auto& t : g.tensors)
    if (t.kind == graph::TensorKind::Parameter && t.name.starts_with("backbone.conv_encoder.model.")) {
      EXPECT_TRUE(t.frozen) << t.name;
      backbone += t.scalars();
    }
  EXPECT_GT(backbone, 20'000'000);
  EXPECT_EQ(g.frozen_parameter_count(), backbone);
}

TEST(DetrFamily, ObjectDetectionHeads) {
  auto m = build({{"model_type", "detr"}, {"num_labels", 91}}, "DetrForObjectDetection");
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("model.input_projection.weight")->shape, (graph::Shape{256, 2048, 1, 1}));
  EXPECT_EQ(g.find_tensor("class_labels_classifier.weight")->shape, (graph::Shape{92, 256}));
  EXPECT_EQ(g.find_tensor("bbox_predictor.layers.2.weight")->shape, (graph::Shape{4, 256}));
  EXPECT_EQ(node(g, "Box_Predictor")->activation, "sigmoid");
  EXPECT_EQ(g.saved_scalars(), 41'524'768 + 106'240);  // plus the frozen batch norms' buffers
  EXPECT_EQ(g.parameter_count(), 41'524'768);  // facebook/detr-resnet-50
}

TEST(DetrFamily, AuxiliaryLossNormsEveryDecoderLayerAndRunsHeadsOnEach) {
  auto m = build({{"model_type", "detr"}, {"auxiliary_loss", true}}, "DetrForObjectDetection");
  const auto& g = m.graph;
  ASSERT_NE(node(g, "Decoder_Aux_LayerNorm_0"), nullptr);
  EXPECT_EQ(node(g, "Decoder_Aux_LayerNorm_5"), nullptr);  // the final norm follows the last layer
  EXPECT_EQ(node(g, "Class_Logits")->out, (graph::Shape{600, 3}));
}

TEST(DetrFamily, DilationAndImageSizeSetTheTokenGrid) {
  auto dilated = build({{"model_type", "detr"}, {"dilation", true}, {"backbone_kwargs", nullptr}});
  EXPECT_EQ(node(dilated.graph, "Input_Projection")->out, (graph::Shape{256, 50, 50}));
  EXPECT_EQ(node(dilated.graph, "Attention_0")->attention->kv_len, 2500);
  auto small = build({{"model_type", "detr"}}, "", 640);
  EXPECT_EQ(node(small.graph, "Input_Projection")->out, (graph::Shape{256, 20, 20}));
}

TEST(DetrFamily, TimmBackboneByName) {
  auto r18 = build({{"model_type", "detr"}, {"backbone", "resnet18"}});
  EXPECT_EQ(r18.graph.find_tensor("input_projection.weight")->shape, (graph::Shape{256, 512, 1, 1}));
  EXPECT_EQ(r18.graph.find_tensor("backbone.conv_encoder.model.layer2.0.conv2.weight")->shape,
            (graph::Shape{128, 128, 3, 3}));
  EXPECT_EQ(r18.graph.find_tensor("backbone.conv_encoder.model.layer1.0.downsample.0.weight"), nullptr);
  auto r101 = build({{"model_type", "detr"}, {"backbone", "resnet101"}});
  EXPECT_NE(r101.graph.find_tensor("backbone.conv_encoder.model.layer3.22.conv3.weight"), nullptr);
  EXPECT_THROW(build({{"model_type", "detr"}, {"backbone", "resnet50d"}}), std::exception);
}

TEST(DetrFamily, HuggingFaceResNetBackboneThroughBackboneConfig) {
  auto m = build({{"model_type", "detr"}, {"use_timm_backbone", false}, {"backbone", nullptr},
                  {"backbone_kwargs", nullptr}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto* stem = g.find_tensor("backbone.conv_encoder.model.embedder.embedder.convolution.weight");
  ASSERT_NE(stem, nullptr);
  EXPECT_EQ(stem->shape, (graph::Shape{64, 3, 7, 7}));
  EXPECT_NE(g.find_tensor("backbone.conv_encoder.model.encoder.stages.3.layers.2.layer.2.convolution.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("backbone.conv_encoder.model.encoder.stages.0.layers.0.layer.0.normalization.weight")->kind,
            graph::TensorKind::Buffer);
  EXPECT_EQ(g.find_tensor("input_projection.weight")->shape, (graph::Shape{256, 2048, 1, 1}));
  EXPECT_THROW(build({{"model_type", "detr"}, {"use_timm_backbone", false}, {"backbone", "microsoft/resnet-50"}}),
               std::exception);
  EXPECT_THROW(build({{"model_type", "detr"}, {"use_timm_backbone", false},
                      {"backbone_config", {{"model_type", "swin"}}}}),
               std::exception);
}

TEST(DetrFamily, LearnedPositionsHoldFiftyRowsAndColumns) {
  auto m = build({{"model_type", "detr"}, {"position_embedding_type", "learned"}});
  EXPECT_EQ(m.graph.find_tensor("backbone.position_embedding.row_embeddings.weight")->shape,
            (graph::Shape{50, 128}));
  EXPECT_TRUE(m.graph.forward.ok);
  auto big = build({{"model_type", "detr"}, {"position_embedding_type", "learned"}}, "", 1664);
  EXPECT_FALSE(big.graph.forward.ok);
}

}  // namespace
}  // namespace neurarch
