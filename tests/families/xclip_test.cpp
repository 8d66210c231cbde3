#include <gtest/gtest.h>

#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(XclipFamily, FramesTalkThroughMessageTokens) {
  auto m = build({{"model_type", "xclip"}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(node(g, "Vision_Patch_Embed")->out, (graph::Shape{8, 50, 768}));
  // The class tokens attend across the 8 frames; each frame's self-attention sees its message token too.
  EXPECT_EQ(node(g, "Vision_Message_Attention_0")->attention->query_len, 8);
  EXPECT_EQ(node(g, "Vision_Message_Concat_0")->out, (graph::Shape{8, 51, 768}));
  EXPECT_EQ(node(g, "Vision_Attention_0")->attention->kv_len, 51);
  EXPECT_EQ(g.find_tensor("mit.position_embedding")->shape, (graph::Shape{1, 8, 512}));
  // The text embedding attends to the frames' mean patch features.
  const auto& prompt = *node(g, "Prompt_Attention_0")->attention;
  EXPECT_EQ(prompt.query_len, 1);
  EXPECT_EQ(prompt.kv_len, 49);
  EXPECT_EQ(g.find_tensor("prompts_generator.decoder.1.cross_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("prompts_generator.decoder.1.mlp.3.weight")->shape, (graph::Shape{512, 2048}));
}

TEST(XclipFamily, ConfigSizesTheVideoParts) {
  auto m = build({{"model_type", "xclip"},
                  {"prompt_layers", 1},
                  {"vision_config", {{"num_frames", 4}, {"mit_num_hidden_layers", 2}}}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("mit.position_embedding")->shape, (graph::Shape{1, 4, 512}));
  EXPECT_NE(g.find_tensor("mit.encoder.layers.1.mlp.fc2.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("prompts_generator.decoder.1.norm1.weight"), nullptr);
}

TEST(XclipFamily, IntegrationWidthMustMatchTheProjection) {
  auto m = build({{"model_type", "xclip"}, {"vision_config", {{"mit_hidden_size", 256}}}});
  EXPECT_FALSE(m.graph.forward.ok);
}

}  // namespace
}  // namespace neurarch
