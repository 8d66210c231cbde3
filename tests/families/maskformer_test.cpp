#include <gtest/gtest.h>

#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(MaskFormerSwinFamily, KeepsTheConfiguredWindowOnSmallGrids) {
  auto swin = build({{"model_type", "swin"}, {"window_size", 12}, {"image_size", 224}});
  auto maskformer = build({{"model_type", "maskformer-swin"}, {"window_size", 12}, {"image_size", 224}});
  // The last stage's grid is 7x7: Swin shrinks its window to it, MaskFormer's Swin pads to one 12x12 window.
  EXPECT_EQ(node(swin.graph, "Attention_11")->attention->query_len, 49);
  EXPECT_EQ(node(maskformer.graph, "Attention_11")->attention->query_len, 144);
  EXPECT_EQ(swin.graph.parameter_count(), maskformer.graph.parameter_count());
}

TEST(MaskFormerFamily, PixelDecoderAndQueries) {
  auto m = build({{"model_type", "maskformer"}}, "MaskFormerForInstanceSegmentation");
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  // Swin's stages at 1/4 .. 1/32 of the 384-pixel image; the FPN climbs back to 1/4.
  EXPECT_EQ(node(g, "FPN_Stem_Conv")->out, (graph::Shape{256, 12, 12}));
  EXPECT_EQ(node(g, "Mask_Projection")->out, (graph::Shape{256, 96, 96}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{100, 96, 96}));
  EXPECT_EQ(g.find_tensor("class_predictor.weight")->shape, (graph::Shape{3, 256}));
  EXPECT_EQ(g.find_tensor("criterion.empty_weight")->shape, (graph::Shape{3}));
}

}  // namespace
}  // namespace neurarch
