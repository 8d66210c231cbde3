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

TEST(SwinFamily, WindowedAttentionAndPatchMerging) {
  auto m = build({{"model_type", "swin"}});
  const auto& g = m.graph;
  EXPECT_EQ(node(g, "Patch_Embed")->out, (graph::Shape{3136, 96}));
  const auto* first = node(g, "Attention_0");
  EXPECT_EQ(first->out, (graph::Shape{3136, 96}));
  EXPECT_EQ(first->attention->query_len, 49);
  EXPECT_EQ(first->attention->kv_len, 49);
  EXPECT_EQ(first->attention->heads, 3);
  EXPECT_EQ(node(g, "Merge_Reduction_0")->out, (graph::Shape{784, 192}));
  EXPECT_EQ(node(g, "Attention_11")->out, (graph::Shape{49, 768}));
  EXPECT_EQ(node(g, "Attention_11")->attention->heads, 24);
  const auto* index = g.find_tensor("encoder.layers.3.blocks.1.attention.self.relative_position_index");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->dtype, DType::I64);
  EXPECT_EQ(index->kind, graph::TensorKind::Buffer);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(SwinFamily, WindowShrinksToSmallGrids) {
  // 160 px: grids 40, 20, 10, 5; the last stage's window is the 5x5 grid; the tables keep the configured size.
  auto m = build({{"model_type", "swin"}}, "", 160);
  EXPECT_EQ(node(m.graph, "Attention_11")->attention->query_len, 25);
  EXPECT_EQ(m.graph.find_tensor("encoder.layers.3.blocks.0.attention.self.relative_position_bias_table")->shape,
            (graph::Shape{169, 24}));
  EXPECT_TRUE(m.graph.forward.ok);
}

TEST(SwinFamily, HeadListMustMatchDepths) {
  EXPECT_THROW(build({{"model_type", "swin"}, {"num_heads", {3, 6}}}), std::exception);
}

}  // namespace
}  // namespace neurarch
