// GLPN and Prompt Depth Anything: the dense heads climb back to the image.
#include <gtest/gtest.h>

#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(GlpnFamily, DecoderFusesStagesBackToTheImage) {
  auto m = build({{"model_type", "glpn"}}, "GLPNForDepthEstimation");
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  // The deepest stage (256 channels, 1/32) is projected; the 64-channel stage needs no projection.
  EXPECT_NE(g.find_tensor("decoder.stages.0.convolution.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("decoder.stages.2.convolution.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("decoder.stages.0.fusion.convolutional_layer1.0.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("decoder.stages.1.fusion.convolutional_layer3.weight")->shape, (graph::Shape{2, 32, 3, 3}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{480, 480}));
}

TEST(PromptDepthAnythingFamily, EveryFusionLayerAddsThePrompt) {
  auto m = build({{"model_type", "prompt_depth_anything"}});
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.inputs.size(), 2U);
  for (int i = 0; i < 4; ++i)
    EXPECT_NE(node(g, "Fusion_" + std::to_string(i) + "_Prompt_Add"), nullptr) << i;
  // The prompt is declared at the coarsest fusion map; the later layers resize it.
  EXPECT_EQ(node(g, "Fusion_0_Prompt_Resize"), nullptr);
  EXPECT_NE(node(g, "Fusion_1_Prompt_Resize"), nullptr);
}

}  // namespace
}  // namespace neurarch
