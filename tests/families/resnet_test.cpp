#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;

using test_support::node;

TEST(ResnetFamily, Resnet50Shapes) {
  auto m = build({{"model_type", "resnet"}});
  const auto& g = m.graph;
  EXPECT_EQ(node(g, "Conv_Stem")->out, (graph::Shape{64, 112, 112}));
  EXPECT_EQ(node(g, "Stem_MaxPool")->out, (graph::Shape{64, 56, 56}));
  EXPECT_EQ(node(g, "Add_0")->out, (graph::Shape{256, 56, 56}));
  EXPECT_EQ(node(g, "Add_3")->out, (graph::Shape{512, 28, 28}));
  EXPECT_EQ(node(g, "Add_15")->out, (graph::Shape{2048, 7, 7}));
  EXPECT_EQ(node(g, "Pooler")->out, (graph::Shape{2048, 1, 1}));
  // Shortcuts only where the width or stride changes: the first layer of each stage.
  EXPECT_NE(node(g, "Shortcut_Conv_0"), nullptr);
  EXPECT_EQ(node(g, "Shortcut_Conv_1"), nullptr);
  EXPECT_EQ(node(g, "Conv_3_2")->spatial->stride, 2);
  const auto* bn = g.find_tensor("encoder.stages.0.layers.0.layer.0.normalization.num_batches_tracked");
  ASSERT_NE(bn, nullptr);
  EXPECT_EQ(bn->dtype, DType::I64);
  EXPECT_EQ(bn->kind, graph::TensorKind::Buffer);
  EXPECT_EQ(g.parameter_count(), 23'508'032);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(ResnetFamily, BasicLayersAndBottleneckDownsampling) {
  auto basic = build({{"model_type", "resnet"}, {"layer_type", "basic"}, {"hidden_sizes", {64, 128, 256, 512}},
                      {"depths", {2, 2, 2, 2}}});
  EXPECT_EQ(basic.graph.find_tensor("encoder.stages.0.layers.0.shortcut.convolution.weight"), nullptr);
  EXPECT_EQ(basic.graph.find_tensor("encoder.stages.1.layers.0.layer.0.convolution.weight")->shape,
            (graph::Shape{128, 64, 3, 3}));
  auto moved = build({{"model_type", "resnet"}, {"downsample_in_bottleneck", true}});
  EXPECT_EQ(node(moved.graph, "Conv_3_1")->spatial->stride, 2);
  EXPECT_EQ(node(moved.graph, "Conv_3_2")->spatial->stride, 1);
}

TEST(ResnetFamily, AnyImageSizeRuns) {
  auto m = build({{"model_type", "resnet"}}, "ResNetForImageClassification", 320);
  EXPECT_EQ(node(m.graph, "Add_15")->out, (graph::Shape{2048, 10, 10}));
  EXPECT_EQ(m.graph.find_tensor("classifier.1.weight")->shape, (graph::Shape{2, 2048}));
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
}

TEST(ResnetFamily, MismatchedStageListsNameTheKey) {
  EXPECT_THROW(build({{"model_type", "resnet"}, {"depths", {3, 4}}}), std::exception);
}

}  // namespace
}  // namespace neurarch
