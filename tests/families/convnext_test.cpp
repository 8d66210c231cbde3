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

TEST(ConvnextFamily, TinyShapes) {
  auto m = build({{"model_type", "convnext"}});
  const auto& g = m.graph;
  EXPECT_EQ(node(g, "Stem_Conv")->out, (graph::Shape{96, 56, 56}));
  EXPECT_EQ(node(g, "Depthwise_Conv_0")->spatial->groups, 96);
  EXPECT_EQ(node(g, "FFN_0")->out, (graph::Shape{56, 56, 96}));  // channels-last view
  EXPECT_EQ(node(g, "FFN_0")->feed_forward->intermediate, 384);
  EXPECT_EQ(node(g, "Add_17_1")->out, (graph::Shape{768, 7, 7}));
  EXPECT_EQ(node(g, "Final_LayerNorm")->out, (graph::Shape{768}));
  EXPECT_EQ(g.find_tensor("encoder.stages.0.downsampling_layer.1.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("encoder.stages.3.downsampling_layer.1.weight")->shape, (graph::Shape{768, 384, 2, 2}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(ConvnextFamily, NoLayerScaleWhenInitIsZero) {
  auto m = build({{"model_type", "convnext"}, {"layer_scale_init_value", 0.0}});
  EXPECT_EQ(m.graph.find_tensor("encoder.stages.0.layers.0.layer_scale_parameter"), nullptr);
}

TEST(ConvnextFamily, OtherImageSizesRun) {
  auto m = build({{"model_type", "convnext"}}, "ConvNextForImageClassification", 384);
  EXPECT_EQ(node(m.graph, "Add_17_1")->out, (graph::Shape{768, 12, 12}));
  EXPECT_TRUE(m.graph.forward.ok);
}

}  // namespace
}  // namespace neurarch
