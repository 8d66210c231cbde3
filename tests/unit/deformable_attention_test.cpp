// Multi-scale deformable attention (graph::DeformableAttrs): what the planner says autograd keeps and what the
// sampling costs, on a tiny graph worked out by hand, and the sizes Deformable DETR's levels give it.
#include <string>

#include <gtest/gtest.h>

#include "blocks/deformable_attention.hpp"
#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/activations.hpp"
#include "plan/cost.hpp"
#include "plan/weights.hpp"

namespace neurarch {
namespace {

using graph::Shape;

// Q = 10 queries sample V = 20 value tokens (two levels, 4x4 and 2x2); d = 8 in 2 heads of 4, 3 points per level,
// so S = 6 samples per query and head. Two modules read the same values, as a decoder's layers read the memory.
constexpr std::int64_t Q = 10, V = 20, D = 8, H = 2, S = 6;

graph::Graph tiny() {
  graph::GraphBuilder b;
  auto values = b.input({V, D}, "audio_features");
  auto queries = b.input({Q, D}, "audio_features", "queries");
  const blocks::DeformableAttentionSpec spec{.hidden = D, .heads = H, .levels = 2, .points = 3,
                                             .module = blocks::Scope("first")};
  auto first = blocks::deformable_attention(b, queries, values, "First", spec);
  auto second_spec = spec;
  second_spec.module = blocks::Scope("second");
  auto second = blocks::deformable_attention(b, first, values, "Second", second_spec);
  return b.finish(second);
}

std::int64_t saved_bytes(const graph::Graph& g, const std::string& name, const plan::Setup& s) {
  const auto model = plan::saved_activations(g, s, plan::weight_roles(g, s));
  for (const auto& n : g.nodes)
    if (n.name == name) return model.nodes.at(static_cast<std::size_t>(n.index)).bytes_per_sample();
  ADD_FAILURE() << "no node " << name;
  return 0;
}

TEST(DeformableAttention, TensorsAndAttributes) {
  const auto g = tiny();
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("first.sampling_offsets.weight")->shape, (Shape{H * 2 * 3 * 2, D}));
  EXPECT_EQ(g.find_tensor("first.attention_weights.weight")->shape, (Shape{H * 2 * 3, D}));
  EXPECT_EQ(g.find_tensor("first.value_proj.weight")->shape, (Shape{D, D}));
  EXPECT_EQ(g.find_tensor("first.output_proj.bias")->shape, (Shape{D}));
  const auto& n = g.nodes.at(2);
  ASSERT_TRUE(n.deformable.has_value());
  EXPECT_EQ(n.type, graph::NodeType::DeformableAttention);
  EXPECT_EQ(n.deformable->queries, Q);
  EXPECT_EQ(n.deformable->value_len, V);
  EXPECT_EQ(n.deformable->samples, S);
  EXPECT_EQ(n.deformable->head_dim, 4);
  EXPECT_EQ(n.out, (Shape{Q, D}));
}

TEST(DeformableAttention, SavedTensorsByHandFp32) {
  plan::Setup s;
  s.precision = plan::Precision::Fp32;
  const std::int64_t first = Q * D       // queries: the input of sampling_offsets and attention_weights (one tensor)
                             + V * D     // value_proj's input
                             + V * D     // the projected values, reshaped per level (grid_sample's input)
                             + Q * H * S * 2  // the sampling grids
                             + Q * H * S      // softmax output
                             + Q * H * S      // its transposed copy, kept by the weighted sum
                             + Q * D * S      // the stacked grid_sample outputs
                             + Q * D;         // output_proj's input
  EXPECT_EQ(saved_bytes(tiny(), "First", s), first * 4);
  // The second module reads the same values: value_proj's input is kept once.
  EXPECT_EQ(saved_bytes(tiny(), "Second", s), (first - V * D) * 4);
}

TEST(DeformableAttention, SavedTensorsByHandUnderAutocast) {
  plan::Setup s;  // full fine-tune, bf16 autocast
  const std::int64_t expected = 2 * Q * D * 2  // the fp32 queries cast to bf16 for each of the two projections
                                + V * D * 2    // the fp32 values cast for value_proj
                                + V * D * 4    // grid_sample promotes to fp32 (the grid is fp32): an fp32 value copy
                                + Q * H * S * 2 * 4 + Q * H * S * 4 + Q * H * S * 4 + Q * D * S * 4
                                + Q * D * 2;   // output_proj keeps a bf16 cast of the fp32 sum
  EXPECT_EQ(saved_bytes(tiny(), "First", s), expected);
}

TEST(DeformableAttention, FlopsByHand) {
  plan::Setup s;
  const auto g = tiny();
  const auto costs = plan::node_costs(g, s);
  const double projections = 2.0 * Q * (H * 2 * 3 * 2) * D  // sampling_offsets over the queries
                             + 2.0 * Q * (H * 2 * 3) * D    // attention_weights over the queries
                             + 2.0 * V * D * D              // value_proj over the value tokens
                             + 2.0 * Q * D * D;             // output_proj over the queries
  const double sampling = 10.0 * Q * D * S;  // bilinear interpolation (8) and the weighted sum (2) per sample and channel
  const auto& c = costs.at(2);
  EXPECT_DOUBLE_EQ(c.flops_forward, projections + sampling);
  EXPECT_DOUBLE_EQ(c.flops_backward, 2.0 * (projections + sampling));
}

TEST(DeformableDetrGraph, LevelsGiveTheValueLength) {
  // Deformable DETR's defaults at 800 x 800: ResNet-50 stages 2-4 (strides 8, 16, 32) and one stride-2 level more.
  const auto g = model::build_model(Config::parse(R"({"model_type": "deformable_detr", "use_timm_backbone": true,
      "backbone": "resnet50", "num_feature_levels": 4, "d_model": 256, "encoder_layers": 1, "decoder_layers": 1})",
                                                  "config.json"),
                                    model::BuildOptions{})
                     .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  int modules = 0;
  for (const auto& n : g.nodes) {
    if (!n.deformable) continue;
    ++modules;
    EXPECT_EQ(n.deformable->value_len, 100 * 100 + 50 * 50 + 25 * 25 + 13 * 13) << n.name;
    EXPECT_EQ(n.deformable->samples, 16) << n.name;
    EXPECT_EQ(n.deformable->queries, n.name.starts_with("Decoder") ? 300 : n.deformable->value_len) << n.name;
  }
  EXPECT_EQ(modules, 2);
  EXPECT_EQ(g.find_tensor("input_proj.3.0.weight")->shape, (Shape{256, 2048, 3, 3}));
}

}  // namespace
}  // namespace neurarch
