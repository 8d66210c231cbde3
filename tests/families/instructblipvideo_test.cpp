// InstructBLIP-Video: the ground-truth class, and every frame through the tower and the Q-Former.
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(InstructBlipVideoFamily, FourFramesFillTheirQueriesIntoThePrompt) {
  model::BuildOptions options;
  options.seq = 192;
  const auto g = model::build_model(Config({{"model_type", "instructblipvideo"}}, "config.json"), options).graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.inputs.front().shape, (graph::Shape{4, 3, 224, 224}));
  EXPECT_EQ(node(g, "Vision_Post_LayerNorm").out, (graph::Shape{4, 257, 1408}));
  // 192 positions: 4 x 32 query outputs and a 64-token instruction, repeated for every frame.
  EXPECT_EQ(node(g, "QFormer_Embedding_LayerNorm").out, (graph::Shape{4, 96, 768}));
  const auto& cross = *node(g, "QFormer_Cross_Attention_0").attention;
  EXPECT_EQ(cross.query_len, 32);
  EXPECT_EQ(cross.kv_len, 257);
  EXPECT_EQ(node(g, "Language_Projection").out, (graph::Shape{4, 32, 768}));
  // Too short a prompt for 128 image tokens cannot run.
  options.seq = 100;
  const auto short_prompt =
      model::build_model(Config({{"model_type", "instructblipvideo"}}, "config.json"), options).graph;
  EXPECT_FALSE(short_prompt.forward.ok);
}

}  // namespace
}  // namespace neurarch
