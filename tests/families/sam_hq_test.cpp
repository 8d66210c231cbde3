#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(SamHqFamily, HighQualityMaskFromTheFirstGlobalLayer) {
  auto m = build({{"model_type", "sam_hq"}});
  const auto& g = m.graph;
  // compress_vit reads the first global layer (layer 2) as a 64x64 map of vit_dim channels.
  const auto* compress = node(g, "HQ_Compress_Conv1");
  ASSERT_NE(compress, nullptr);
  EXPECT_EQ(g.nodes[static_cast<std::size_t>(compress->inputs.front())].name, "Add_2_2");
  EXPECT_EQ(node(g, "HQ_Map")->out, (graph::Shape{32, 256, 256}));
  EXPECT_EQ(node(g, "Output_Tokens")->out, (graph::Shape{1 + 4 + 1 + 2, 256}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{3, 256, 256}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(SamHqFamily, WithoutGlobalLayersTheCompressionStillExists) {
  auto m = build({{"model_type", "sam_hq"}, {"vision_config", {{"global_attn_indexes", nlohmann::json::array()}}}});
  const auto& g = m.graph;
  EXPECT_EQ(node(g, "HQ_Compress_Conv1"), nullptr);
  EXPECT_EQ(g.find_tensor("mask_decoder.compress_vit_conv1.weight")->shape, (graph::Shape{768, 256, 2, 2}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

}  // namespace
}  // namespace neurarch
