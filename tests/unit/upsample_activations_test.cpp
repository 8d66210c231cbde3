// Upsampling nodes of dense-prediction heads: shapes by PyTorch's formulas, what autograd keeps, and the
// work of a transposed convolution (which follows its input map, not its larger output).
#include <string>

#include <gtest/gtest.h>

#include "blocks/upsample.hpp"
#include "plan/activations.hpp"
#include "plan/cost.hpp"
#include "plan/weights.hpp"

namespace neurarch {
namespace {

using graph::Shape;

// conv-transpose (4 -> 6, k 2, stride 2) -> bilinear resize of its 16x16 map to 20x20 -> conv 1x1
graph::Graph upsampler() {
  graph::GraphBuilder b;
  auto x = b.input({4, 8, 8}, "pixels");
  auto up = blocks::conv_transpose2d(b, x, "Up", {.module = blocks::Scope("up"), .in = 4, .out = 6, .kernel = 2,
                                                   .stride = 2});
  auto r = blocks::resize(b, up, "Resize", 20, 20);
  auto c = blocks::conv2d(b, r, "Conv", {.module = blocks::Scope("conv"), .in = 6, .out = 2, .kernel = 1});
  return b.finish(c);
}

std::int64_t saved_bytes(const graph::Graph& g, int node, const plan::Setup& s) {
  auto model = plan::saved_activations(g, s, plan::weight_roles(g, s));
  std::int64_t bytes = 0;
  for (const auto& t : model.nodes.at(static_cast<std::size_t>(node)).saved) bytes += t.bytes(1);
  return bytes;
}

TEST(UpsampleNodes, ShapesAndTensors) {
  auto g = upsampler();
  EXPECT_EQ(g.nodes[1].out, (Shape{6 * 2 * 2, 8, 8}));  // one matmul per input pixel; the map is 6 x 16 x 16
  EXPECT_EQ(g.nodes[2].out, (Shape{6, 20, 20}));
  // ConvTranspose2d stores [in, out / groups, k, k].
  EXPECT_EQ(g.find_tensor("up.weight")->shape, (Shape{4, 6, 2, 2}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  graph::GraphBuilder b;
  auto x = b.input({4, 8, 8}, "pixels");
  auto bad = blocks::conv_transpose2d(b, x, "Up", {.module = blocks::Scope("up"), .in = 3, .out = 6, .kernel = 2,
                                                    .stride = 2});
  EXPECT_FALSE(b.finish(bad).forward.ok);
  graph::GraphBuilder b2;
  auto y = b2.input({4, 8, 8}, "pixels");
  auto overlapping = blocks::conv_transpose2d(b2, y, "Up", {.module = blocks::Scope("up"), .in = 4, .out = 6,
                                                             .kernel = 3, .stride = 2});
  EXPECT_FALSE(b2.finish(overlapping).forward.ok);
}

TEST(UpsampleNodes, ResizeKeepsNothingAndConvTransposeKeepsItsInput) {
  auto g = upsampler();
  plan::Setup s;  // full fine-tune, bf16 autocast
  EXPECT_EQ(saved_bytes(g, 1, s), 4 * 8 * 8 * 2);  // the pixels' bf16 cast
  EXPECT_EQ(saved_bytes(g, 2, s), 0);
  EXPECT_EQ(saved_bytes(g, 3, s), 6 * 20 * 20 * 2);  // the resized map, still bf16
}

TEST(UpsampleNodes, TransposedConvolutionWorkFollowsItsInput) {
  auto g = upsampler();
  plan::Setup s;
  auto costs = plan::node_costs(g, s);
  EXPECT_DOUBLE_EQ(costs[1].flops_forward, 2.0 * 8 * 8 * 4 * 6 * 2 * 2);
  EXPECT_DOUBLE_EQ(costs[2].flops_forward, 0.0);
}

}  // namespace
}  // namespace neurarch
