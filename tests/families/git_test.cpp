#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, const std::string& cls = "", std::optional<std::int64_t> seq = {}) {
  model::BuildOptions options;
  options.class_name = cls;
  options.seq = seq;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(GitFamily, TextDecoderRunsOverImageTokensThenText) {
  auto m = build({{"model_type", "git"}}, "GitForCausalLM", 32);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_EQ(g.input_shape, (graph::Shape{32}));
  // GitVisionConfig's patch 16 over 224 pixels: 196 patches and the class token, all post-layernormed.
  EXPECT_EQ(node(g, "Vision_Post_LayerNorm").out, (graph::Shape{197, 768}));
  const auto& attention = node(g, "Attention_0");
  EXPECT_EQ(attention.attention->query_len, 197 + 32);
  EXPECT_FALSE(attention.attention->sdpa);
  EXPECT_FALSE(node(g, "Vision_Attention_11").attention->sdpa);
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{197 + 32, 30522}));
  EXPECT_EQ(g.find_tensor("output.weight")->tied_to, "");
}

TEST(GitFamily, TiedOutputKeepsItsBias) {
  auto m = build({{"model_type", "git"}, {"tie_word_embeddings", true}}, "GitForCausalLM", 16);
  EXPECT_EQ(m.graph.find_tensor("output.weight")->tied_to, "git.embeddings.word_embeddings.weight");
  EXPECT_TRUE(m.graph.find_tensor("output.bias")->saved());
}

TEST(GitFamily, VideoRunsTheTowerPerFrameWithTemporalEmbeddings) {
  auto m = build({{"model_type", "git"}, {"num_image_with_embedding", 6}}, "GitModel", 20);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("img_temperal_embedding.5")->shape, (graph::Shape{1, 1, 768}));
  EXPECT_EQ(g.find_tensor("img_temperal_embedding.6"), nullptr);
  EXPECT_EQ(node(g, "Vision_Visual_Projection").out, (graph::Shape{6 * 197, 768}));
  EXPECT_EQ(node(g, "Attention_0").attention->query_len, 6 * 197 + 20);
}

TEST(GitFamily, ProjectionReadsTheVisionWidth) {
  auto m = build({{"model_type", "git"},
                  {"hidden_size", 256},
                  {"num_attention_heads", 4},
                  {"vision_config", {{"hidden_size", 128}, {"num_attention_heads", 4}, {"num_hidden_layers", 2}}}},
                 "GitModel", 8);
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(m.graph.find_tensor("visual_projection.visual_projection.0.weight")->shape, (graph::Shape{256, 128}));
  EXPECT_EQ(m.graph.find_tensor("visual_projection.visual_projection.1.weight")->shape, (graph::Shape{256}));
}

}  // namespace
}  // namespace neurarch
