#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(DepthAnythingFamily, FusionFollowsTheNextMapAndTheHeadTheImage) {
  auto m = build({{"model_type", "depth_anything"}});
  const auto& g = m.graph;
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 518, 518}));
  // Grid 37: maps at 148, 74, 37 and 19 (a stride-2 3x3 conv).
  EXPECT_EQ(node(g, "Reassemble_Resize_3")->out, (graph::Shape{384, 19, 19}));
  EXPECT_EQ(node(g, "Fusion_0_Upsample")->out, (graph::Shape{64, 37, 37}));
  EXPECT_EQ(node(g, "Fusion_3_Upsample")->out, (graph::Shape{64, 296, 296}));
  EXPECT_EQ(node(g, "Head_Resize")->out, (graph::Shape{32, 518, 518}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{518, 518}));
  // The backbone's LayerNorm runs on each of the four stages, stored once.
  EXPECT_NE(node(g, "Backbone_LayerNorm_9"), nullptr);
  EXPECT_NE(node(g, "Backbone_LayerNorm_12"), nullptr);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(DepthAnythingFamily, MetricHeadAndOtherBackbones) {
  auto m = build({{"model_type", "depth_anything"},
                  {"depth_estimation_type", "metric"},
                  {"backbone_config", {{"model_type", "dinov2"}, {"hidden_size", 768}, {"out_indices", {3, 6, 9, 12}}}},
                  {"reassemble_hidden_size", 768}});
  const auto& g = m.graph;
  EXPECT_EQ(node(g, "Head_Conv3")->activation, "sigmoid");
  EXPECT_EQ(g.find_tensor("neck.reassemble_stage.layers.0.projection.weight")->shape, (graph::Shape{48, 768, 1, 1}));
  EXPECT_NE(node(g, "Backbone_LayerNorm_3"), nullptr);
  // Dinov2Config's own image size applies once a backbone_config is given.
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 224, 224}));
  EXPECT_THROW(build({{"model_type", "depth_anything"}, {"backbone_config", {{"model_type", "resnet"}}}}),
               std::exception);
  EXPECT_THROW(build({{"model_type", "depth_anything"}, {"backbone_config", {{"out_indices", {12}}}}}),
               std::exception);
}

}  // namespace
}  // namespace neurarch
