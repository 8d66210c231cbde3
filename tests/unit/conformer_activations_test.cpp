// Activation rules of the conformer convolution module's nodes (GLU, BatchNorm1d over time-major
// frames): what autograd keeps, by hand.
#include <string>

#include <gtest/gtest.h>

#include "blocks/conv.hpp"
#include "plan/activations.hpp"
#include "plan/weights.hpp"

namespace neurarch {
namespace {

using graph::Shape;

std::int64_t saved_bytes(const graph::Graph& g, const std::string& name, const plan::Setup& s) {
  auto model = plan::saved_activations(g, s, plan::weight_roles(g, s));
  for (const auto& n : g.nodes)
    if (n.name == name) {
      std::int64_t bytes = 0;
      for (const auto& t : model.nodes.at(static_cast<std::size_t>(n.index)).saved) bytes += t.bytes(1);
      return bytes;
    }
  ADD_FAILURE() << "no node " << name;
  return 0;
}

// [10 frames, 4 channels] -> pointwise conv to 8 -> GLU -> depthwise conv (k 3) -> BatchNorm1d + swish
graph::Graph conv_module() {
  graph::GraphBuilder b;
  auto x = b.input({10, 4}, "audio_features");
  auto p = blocks::conv1d(b, x, "Pointwise", {.module = blocks::Scope("pw"), .in_channels = 4, .out_channels = 8,
                                              .bias = false});
  auto g = blocks::glu(b, p, "GLU");
  auto d = blocks::conv1d(b, g, "Depthwise", {.module = blocks::Scope("dw"), .in_channels = 4, .out_channels = 4,
                                              .kernel = 3, .padding = 1, .groups = 4, .bias = false});
  auto bn = blocks::batch_norm1d(b, d, "BN", blocks::Scope("bn"), "swish");
  return b.finish(bn);
}

TEST(ConformerActivations, ShapesAndTensors) {
  auto g = conv_module();
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.nodes[2].out, (Shape{10, 4}));  // GLU halves the channels
  EXPECT_EQ(g.nodes[4].out, (Shape{10, 4}));
  EXPECT_EQ(g.find_tensor("dw.weight")->shape, (Shape{4, 1, 3}));
  EXPECT_EQ(g.find_tensor("bn.running_var")->shape, (Shape{4}));
  EXPECT_EQ(g.find_tensor("bn.running_var")->kind, graph::TensorKind::Buffer);
  EXPECT_EQ(g.find_tensor("bn.num_batches_tracked")->dtype, DType::I64);
  EXPECT_EQ(g.parameter_count(), 8 * 4 + 4 * 3 + 2 * 4);
}

TEST(ConformerActivations, GluKeepsItsDoubleWidthInputAndBatchNormItsChannelStatistics) {
  auto g = conv_module();
  plan::Setup s;  // full, bf16 autocast
  // The fp32 input is cast to bf16 for the conv, which keeps the cast.
  EXPECT_EQ(saved_bytes(g, "Pointwise", s), 10 * 4 * 2);
  // GLU keeps its bf16 [10, 8] input.
  EXPECT_EQ(saved_bytes(g, "GLU", s), 10 * 8 * 2);
  // BatchNorm1d keeps its bf16 input and an fp32 mean and invstd per channel (4, not 10 frames);
  // swish keeps its input.
  EXPECT_EQ(saved_bytes(g, "BN", s), 10 * 4 * 2 + 2 * 4 * 4 + 10 * 4 * 2);
}

}  // namespace
}  // namespace neurarch
