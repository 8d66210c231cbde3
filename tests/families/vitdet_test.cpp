#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(VitDetFamily, ReturnsThePatchMap) {
  auto m = build({{"model_type", "vitdet"}});
  const auto& g = m.graph;
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{768, 14, 14}));
  EXPECT_FALSE(node(g, "Attention_0")->attention->sdpa);
  EXPECT_EQ(node(g, "Attention_0")->attention->query_len, 196);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(VitDetFamily, WindowsRelativeTablesAndResidualBlocks) {
  auto m = build({{"model_type", "vitdet"},
                  {"image_size", 1024},
                  {"window_size", 14},
                  {"window_block_indices", {0, 1}},
                  {"residual_block_indices", {1}},
                  {"use_relative_position_embeddings", true}});
  const auto& g = m.graph;
  EXPECT_EQ(node(g, "Attention_0")->attention->query_len, 14 * 14);
  EXPECT_EQ(node(g, "Attention_2")->attention->query_len, 64 * 64);
  EXPECT_EQ(g.find_tensor("encoder.layer.0.attention.rel_pos_h")->shape, (graph::Shape{27, 64}));
  EXPECT_EQ(g.find_tensor("encoder.layer.2.attention.rel_pos_w")->shape, (graph::Shape{127, 64}));
  EXPECT_EQ(g.find_tensor("encoder.layer.1.residual.conv2.weight")->shape, (graph::Shape{384, 384, 3, 3}));
  EXPECT_EQ(g.find_tensor("encoder.layer.1.residual.conv2.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("encoder.layer.1.residual.norm3.bias")->shape, (graph::Shape{768}));
  EXPECT_EQ(g.find_tensor("encoder.layer.0.residual.conv1.weight"), nullptr);
  // Positions are still sized for pretrain_image_size (224): 14 x 14 + 1.
  EXPECT_EQ(g.find_tensor("embeddings.position_embeddings")->shape, (graph::Shape{1, 197, 768}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{768, 64, 64}));
  EXPECT_FALSE(g.notes.empty());  // 64 is not a multiple of 14: padded windows
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

}  // namespace
}  // namespace neurarch
