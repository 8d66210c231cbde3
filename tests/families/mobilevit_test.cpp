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

TEST(MobilevitFamily, ConvStagesAndUnfoldedAttention) {
  auto m = build({{"model_type", "mobilevit"}});
  const auto& g = m.graph;
  EXPECT_EQ(node(g, "Conv_Stem")->out, (graph::Shape{16, 128, 128}));
  EXPECT_EQ(node(g, "Add_0"), nullptr);  // 16 -> 32 channels: no residual
  EXPECT_NE(node(g, "Add_2"), nullptr);
  // Stage 3 at 32 x 32 with 2 x 2 patches: 4 sequences of 256 patches.
  const auto* attn = node(g, "Attention_6");
  ASSERT_NE(attn, nullptr);
  EXPECT_EQ(attn->out, (graph::Shape{1024, 144}));
  EXPECT_EQ(attn->attention->query_len, 256);
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{640, 1, 1}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(MobilevitFamily, OutputStrideDilatesInsteadOfStriding) {
  auto m = build({{"model_type", "mobilevit"}, {"output_stride", 8}});
  // Stages 4 and 5 keep stage 3's 32 x 32 map.
  EXPECT_EQ(node(m.graph, "Conv_Expand")->out, (graph::Shape{640, 32, 32}));
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
}

}  // namespace
}  // namespace neurarch
