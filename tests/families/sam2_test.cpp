#include <gtest/gtest.h>

#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(Sam2HieraDetFamily, WindowsPooledQueriesAndGlobalBlocks) {
  auto m = build({{"model_type", "sam2_hiera_det_model"}});
  const auto& g = m.graph;
  // Block 0: 8x8 windows on the 256x256 grid.
  EXPECT_EQ(node(g, "Attention_0")->attention->query_len, 64);
  EXPECT_EQ(node(g, "Attention_0")->attention->kv_len, 64);
  // Block 1 opens stage 1: the previous stage's 8x8 window, its queries pooled 2x2 to 4x4.
  EXPECT_EQ(node(g, "Attention_1")->attention->query_len, 16);
  EXPECT_EQ(node(g, "Attention_1")->attention->kv_len, 64);
  EXPECT_EQ(node(g, "Attention_1")->out, (graph::Shape{128 * 128, 192}));
  // Block 5 is global on the 64x64 grid.
  EXPECT_EQ(node(g, "Attention_5")->attention->query_len, 64 * 64);
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{32 * 32, 768}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(Sam2Family, MaskDecoderReadsTheFinerFpnLevels) {
  auto m = build({{"model_type", "sam2"}});
  const auto& g = m.graph;
  EXPECT_EQ(node(g, "Conv_S0")->out, (graph::Shape{32, 256, 256}));
  EXPECT_EQ(node(g, "Conv_S1")->out, (graph::Shape{64, 128, 128}));
  EXPECT_EQ(node(g, "No_Memory_Embedding")->out, (graph::Shape{256, 64, 64}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{3, 256, 256}));
  // SAM 2's token MLP is num_hidden_layers linears: proj_in and proj_out only by default.
  EXPECT_NE(g.find_tensor("mask_decoder.transformer.layers.0.mlp.proj_in.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("mask_decoder.transformer.layers.0.mlp.layers.0.weight"), nullptr);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

}  // namespace
}  // namespace neurarch
