#include <gtest/gtest.h>

#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(GroupvitFamily, StagesGroupTheImageTokens) {
  auto m = build({{"model_type", "groupvit"}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // 196 patches + 64 group tokens, grouped into 64, then 64 + 8 grouped into 8; the last stage has no tokens.
  EXPECT_EQ(node(g, "Vision_Stage_0_Group_Concat")->out, (graph::Shape{260, 384}));
  EXPECT_EQ(node(g, "Vision_Stage_1_Group_Concat")->out, (graph::Shape{72, 384}));
  EXPECT_EQ(node(g, "Vision_Stage_1_Assign_Attention")->attention->query_len, 8);
  EXPECT_EQ(node(g, "Vision_Stage_1_Assign_Attention")->attention->kv_len, 64);
  EXPECT_EQ(g.find_tensor("vision_model.encoder.stages.2.group_token"), nullptr);
  EXPECT_EQ(g.find_tensor("vision_model.encoder.stages.1.group_projector.1.fc1.weight")->shape,
            (graph::Shape{192, 64}));
  EXPECT_EQ(g.find_tensor("vision_model.encoder.stages.0.downsample.mlp_inter.fc2.weight")->shape,
            (graph::Shape{64, 192}));
  EXPECT_EQ(g.find_tensor("text_projection.1.running_mean")->kind, graph::TensorKind::Buffer);
  EXPECT_FALSE(node(g, "Text_Attention_0")->attention->sdpa);
}

TEST(GroupvitFamily, AssignRatioMayBeOneNumber) {
  auto m = build({{"model_type", "groupvit"}, {"vision_config", {{"assign_mlp_ratio", 2}}}});
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("vision_model.encoder.stages.0.downsample.mlp_inter.fc1.weight")->shape,
            (graph::Shape{768, 64}));
  EXPECT_EQ(g.find_tensor("vision_model.encoder.stages.0.downsample.mlp_channels.fc1.weight")->shape,
            (graph::Shape{768, 384}));
}

TEST(GroupvitFamily, StageListsMustAgree) {
  EXPECT_THROW(build({{"model_type", "groupvit"}, {"vision_config", {{"depths", {6, 6}}}}}), std::exception);
}

}  // namespace
}  // namespace neurarch
