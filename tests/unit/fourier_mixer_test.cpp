// The Fourier mixer (FNet's token mixing, blocks::fourier_mixer): its shape and failure, what the planner says
// autograd keeps, its output dtype and its FLOPs, on a tiny graph worked out by hand.
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "blocks/fourier_mixer.hpp"
#include "plan/activations.hpp"
#include "plan/cost.hpp"
#include "plan/weights.hpp"

namespace neurarch {
namespace {

using graph::Shape;

// S = 8 tokens of H = 4 channels: a trained projection (so autograd records what follows), the mixer, FNet's
// residual sum and its LayerNorm.
constexpr std::int64_t S = 8, H = 4;

graph::Graph tiny() {
  graph::GraphBuilder b;
  auto x = b.input({S, H}, "audio_features");
  auto proj = blocks::dense(b, x, "Proj", blocks::Scope("proj"), H, H, true);
  auto mixed = blocks::fourier_mixer(b, proj, "Mixer", blocks::Scope("fourier"));
  auto sum = blocks::add(b, mixed, proj, "Sum");
  return b.finish(blocks::norm(b, sum, "Norm", {blocks::Scope("norm")}));
}

const graph::Node& named(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

std::int64_t saved_bytes(const graph::Graph& g, const std::string& name, plan::Precision precision) {
  plan::Setup s;
  s.precision = precision;
  const auto model = plan::saved_activations(g, s, plan::weight_roles(g, s));
  return model.nodes.at(static_cast<std::size_t>(named(g, name).index)).bytes_per_sample();
}

TEST(FourierMixer, ShapeAndNoTensors) {
  const auto g = tiny();
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto& n = named(g, "Mixer");
  EXPECT_EQ(n.type, graph::NodeType::FourierMixer);
  EXPECT_EQ(graph::node_type_name(n.type), "Fourier Mixer");
  EXPECT_EQ(n.out, (Shape{S, H}));
  EXPECT_TRUE(n.tensors.empty());
}

TEST(FourierMixer, FailsOffASequenceOfVectors) {
  graph::GraphBuilder b;
  auto x = b.input({2, S, H}, "audio_features");
  const auto g = b.finish(blocks::fourier_mixer(b, x, "Mixer", blocks::Scope("fourier")));
  ASSERT_FALSE(g.forward.ok);
  EXPECT_NE(g.forward.reason.find("[seq, hidden]"), std::string::npos) << g.forward.reason;
}

TEST(FourierMixer, KeepsNothingForBackward) {
  const auto g = tiny();
  for (auto p : {plan::Precision::Fp32, plan::Precision::AmpBf16, plan::Precision::Bf16})
    EXPECT_EQ(saved_bytes(g, "Mixer", p), 0) << static_cast<int>(p);
}

TEST(FourierMixer, HandsOnItsInputsDtype) {
  const auto g = tiny();
  // LayerNorm keeps its input as it comes (outside autocast) and a mean and rstd per row in fp32. In pure bf16 the
  // projection emits bf16, the mixer keeps it and the sum of two bf16 tensors stays bf16.
  EXPECT_EQ(saved_bytes(g, "Norm", plan::Precision::Bf16), S * H * 2 + S * 2 * 4);
  EXPECT_EQ(saved_bytes(g, "Norm", plan::Precision::Fp32), S * H * 4 + S * 2 * 4);
}

TEST(FourierMixer, FlopsByHand) {
  plan::Setup s;  // bf16 autocast: activations move at 2 bytes
  const auto g = tiny();
  const auto costs = plan::node_costs(g, s);
  const auto& c = costs.at(static_cast<std::size_t>(named(g, "Mixer").index));
  // S FFTs of H points and H FFTs of S points at 5 N log2 N each: 5 (8 * 4 * 2 + 4 * 8 * 3) = 800.
  EXPECT_DOUBLE_EQ(c.flops_forward, 800.0);
  EXPECT_DOUBLE_EQ(c.flops_backward, 800.0);
  EXPECT_DOUBLE_EQ(c.weight_bytes, 0.0);
  // Input read and real output at 2 bytes a point, plus the complex64 result written at 8.
  EXPECT_DOUBLE_EQ(c.activation_bytes, (S * H + S * H) * 2.0 + S * H * 8.0);
}

}  // namespace
}  // namespace neurarch
