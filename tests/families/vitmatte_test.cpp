#include <gtest/gtest.h>

#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(VitMatteFamily, DefaultsDisagreeWithTheirBackbone) {
  // VitMatteConfig's hidden_size (384) is not ViTDet's default width (768): the reference fails in the fusion.
  auto m = build({{"model_type", "vitmatte"}});
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_NE(m.graph.forward.reason.find("hidden_size 384"), std::string::npos) << m.graph.forward.reason;
}

TEST(VitMatteFamily, SmallModelFusesDetailsBackToTheImage) {
  auto m = build({{"model_type", "vitmatte"},
                  {"backbone_config",
                   {{"model_type", "vitdet"}, {"hidden_size", 384}, {"num_attention_heads", 6}, {"num_channels", 4},
                    {"image_size", 512}, {"window_size", 14}, {"window_block_indices", {0, 1, 3, 4}}}}});
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(node(g, "Backbone_Attention_0")->attention->query_len, 14 * 14);
  EXPECT_EQ(node(g, "ConvStream_0_Conv")->out, (graph::Shape{48, 256, 256}));
  EXPECT_EQ(node(g, "Fusion_3_Concat")->out, (graph::Shape{64 + 4, 512, 512}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{1, 512, 512}));
  EXPECT_EQ(g.find_tensor("decoder.convstream.convs.0.conv.weight")->shape, (graph::Shape{48, 4, 3, 3}));
}

}  // namespace
}  // namespace neurarch
