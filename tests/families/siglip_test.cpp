#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

using test_support::build;

using test_support::node;

TEST(SiglipFamily, TwoTowersWithScaleAndBias) {
  auto m = build({{"model_type", "siglip"}});
  const auto& g = m.graph;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{64}));
  EXPECT_EQ(g.inputs[1].shape, (graph::Shape{3, 224, 224}));
  // No class token: 196 patches; bidirectional text.
  EXPECT_EQ(node(g, "Vision_Attention_0")->out, (graph::Shape{196, 768}));
  EXPECT_FALSE(node(g, "Text_Attention_0")->attention->causal);
  EXPECT_EQ(g.find_tensor("logit_scale")->shape, (graph::Shape{1}));
  EXPECT_EQ(g.find_tensor("logit_bias")->shape, (graph::Shape{1}));
  // The probe attends over every patch and yields one token.
  const auto* probe = node(g, "Vision_Head_Attention");
  ASSERT_NE(probe, nullptr);
  EXPECT_EQ(probe->attention->query_len, 1);
  EXPECT_EQ(probe->attention->kv_len, 196);
  EXPECT_EQ(node(g, "Vision_Head_Add")->out, (graph::Shape{1, 768}));
  EXPECT_EQ(g.saved_scalars(), 203'155'970);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(SiglipFamily, VisionWithoutHead) {
  auto m = build({{"model_type", "siglip_vision_model"}, {"vision_use_head", false}});
  EXPECT_EQ(m.graph.find_tensor("vision_model.head.probe"), nullptr);
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{768}));
}

TEST(SiglipFamily, TextProjectionSizeMustMatchTheImageWidth) {
  auto m = build({{"model_type", "siglip"}, {"text_config", {{"projection_size", 512}}}});
  EXPECT_EQ(m.graph.find_tensor("text_model.head.weight")->shape, (graph::Shape{512, 768}));
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("width 512"));
}

TEST(SiglipFamily, OtherImageSizeNeedsInterpolation) {
  auto m = build({{"model_type", "siglip_vision_model"}}, "", 384);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("SigLIP refuses a 384x384 image"));
}

}  // namespace
}  // namespace neurarch
