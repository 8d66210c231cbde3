#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;

using test_support::node;

TEST(SegformerFamily, ReducedKeysAndStages) {
  auto m = build({{"model_type", "segformer"}});
  const auto& g = m.graph;
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 512, 512}));
  EXPECT_EQ(node(g, "Patch_Embed_Conv_0")->out, (graph::Shape{32, 128, 128}));
  const auto* first = node(g, "Attention_0");
  EXPECT_EQ(first->attention->query_len, 128 * 128);
  EXPECT_EQ(first->attention->kv_len, 16 * 16);  // sr ratio 8
  EXPECT_EQ(first->inputs.size(), 2u);
  EXPECT_EQ(node(g, "Attention_7")->attention->kv_len, 16 * 16);  // ratio 1 on the 16 x 16 last stage
  EXPECT_EQ(node(g, "Reduction_Conv_6"), nullptr);
  EXPECT_EQ(node(g, "FFN_DWConv_0")->out, (graph::Shape{128, 128, 128}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{256, 16, 16}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(SegformerFamily, StageListsMustAgree) {
  EXPECT_THROW(build({{"model_type", "segformer"}, {"sr_ratios", {8, 4}}}), std::exception);
}

}  // namespace
}  // namespace neurarch
