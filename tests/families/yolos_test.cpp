#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;

TEST(YolosFamily, RectangularDefaultAndMidPositions) {
  auto m = build({{"model_type", "yolos"}});
  const auto& g = m.graph;
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 512, 864}));
  EXPECT_EQ(g.find_tensor("encoder.mid_position_embeddings")->shape, (graph::Shape{11, 1, 1829, 768}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{768}));  // the pooler
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(YolosFamily, InterpolatesToAnySize) {
  auto m = build({{"model_type", "yolos"}, {"use_mid_position_embeddings", false}}, "", 800);
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(m.graph.find_tensor("encoder.mid_position_embeddings"), nullptr);
  EXPECT_EQ(m.graph.nodes.at(3).out, (graph::Shape{1 + 2500 + 100, 768}));
}

TEST(YolosFamily, DetectionHeadsReadTheDetectionTokens) {
  auto m = build({{"model_type", "yolos"}, {"num_labels", 91}}, "YolosForObjectDetection");
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{100, 92}));
  EXPECT_EQ(m.graph.find_tensor("bbox_predictor.layers.2.weight")->shape, (graph::Shape{4, 768}));
  EXPECT_EQ(m.graph.find_tensor("vit.pooler.dense.weight"), nullptr);
}

TEST(YolosFamily, IntImageSizeCannotBeBuilt) {
  auto m = build({{"model_type", "yolos"}, {"image_size", 512}});
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, ::testing::HasSubstr("[height, width]"));
}

}  // namespace
}  // namespace neurarch
