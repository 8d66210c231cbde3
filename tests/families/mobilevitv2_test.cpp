#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(MobileVitV2Family, LinearAttentionOverUnfoldedPatches) {
  auto m = build({{"model_type", "mobilevitv2"}});
  const auto& g = m.graph;
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 256, 256}));
  // Stage 3 runs on a 32 x 32 map: 4 pixel positions x 256 patches, 128 channels; no attention matrix.
  const auto* mix = node(g, "Linear_Attention_5");
  ASSERT_NE(mix, nullptr);
  EXPECT_EQ(mix->out, (graph::Shape{128, 4, 256}));
  for (const auto& n : g.nodes) EXPECT_FALSE(n.attention.has_value()) << n.name;
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{512, 1, 1}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(MobileVitV2Family, WidthMultiplierScalesEveryStage) {
  auto m = build({{"model_type", "mobilevitv2"}, {"width_multiplier", 0.5}}, "MobileViTV2ForImageClassification");
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("mobilevitv2.conv_stem.convolution.weight")->shape, (graph::Shape{16, 3, 3, 3}));
  EXPECT_EQ(g.find_tensor("mobilevitv2.encoder.layer.0.layer.0.reduce_1x1.convolution.weight")->shape,
            (graph::Shape{32, 32, 1, 1}));
  EXPECT_EQ(g.find_tensor("mobilevitv2.encoder.layer.2.transformer.layer.0.attention.qkv_proj.convolution.weight")->shape,
            (graph::Shape{129, 64, 1, 1}));
  EXPECT_EQ(g.find_tensor("classifier.weight")->shape, (graph::Shape{2, 256}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

}  // namespace
}  // namespace neurarch
