// A convolution followed by a GLU over its channels (Speech2Text's subsampler): the node's output has
// half the convolution's channels, and autograd keeps the GLU's whole input.
#include <gtest/gtest.h>

#include "blocks/conv.hpp"
#include "plan/activations.hpp"
#include "plan/weights.hpp"

using namespace neurarch;

namespace {

plan::Setup fp32_full() {
  plan::Setup s;
  s.precision = plan::Precision::Fp32;
  return s;
}

graph::Graph glu_conv(std::int64_t out_channels) {
  graph::GraphBuilder b;
  auto frames = b.input({16, 3}, "audio_features", "input_features");
  auto x = blocks::conv1d(b, frames, "Conv",
                          {.module = graph::Scope("conv"), .in_channels = 3, .out_channels = out_channels,
                           .kernel = 4, .stride = 2, .activation = "glu"});
  return b.finish(x);
}

}  // namespace

TEST(GluConvRule, HalvesTheChannelsAndKeepsTheGluInput) {
  auto g = glu_conv(8);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto& conv = g.nodes[1];
  EXPECT_EQ(conv.out, (graph::Shape{7, 4}));  // (16 - 4) / 2 + 1 frames, 8 / 2 channels
  EXPECT_EQ(g.find_tensor("conv.weight")->shape, (graph::Shape{8, 3, 4}));
  const plan::Setup s = fp32_full();
  auto m = plan::saved_activations(g, s, plan::weight_roles(g, s));
  // The convolution's input (16 x 3) and the GLU's input, the convolution's whole output (7 x 8), in fp32.
  EXPECT_EQ(m.nodes[1].bytes_per_sample(), 16 * 3 * 4 + 7 * 8 * 4);
}

TEST(GluConvRule, AnOddChannelCountCannotBeHalved) {
  auto g = glu_conv(7);
  EXPECT_FALSE(g.forward.ok);
}
