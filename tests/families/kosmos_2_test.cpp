#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, const std::string& cls, std::optional<std::int64_t> seq = {}) {
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

TEST(Kosmos2Family, LatentQueriesReadThePatchesAndFillThePrompt) {
  auto m = build({{"model_type", "kosmos-2"},
                  {"text_config", {{"layers", 2}}},
                  {"vision_config", {{"num_hidden_layers", 2}}}},
                 "Kosmos2ForConditionalGeneration", 128);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_EQ(g.input_shape, (graph::Shape{128}));
  // 224 / 14 = 16: 256 patches and the class token, all post-layernormed.
  EXPECT_EQ(node(g, "Vision_Post_LayerNorm").out, (graph::Shape{257, 1024}));
  const auto& x_attn = node(g, "Projection_Cross_Attention");
  EXPECT_EQ(x_attn.attention->query_len, 64);
  EXPECT_EQ(x_attn.attention->kv_len, 257 + 64);
  EXPECT_EQ(x_attn.out, (graph::Shape{64, 2048}));
  EXPECT_EQ(g.find_tensor("text_model.lm_head.weight")->tied_to, "text_model.model.embed_tokens.weight");
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{128, 65037}));
}

TEST(Kosmos2Family, PromptMustHoldTheLatents) {
  auto m = build({{"model_type", "kosmos-2"}, {"text_config", {{"layers", 1}}}, {"vision_config", {{"num_hidden_layers", 1}}}},
                 "Kosmos2Model", 32);
  EXPECT_FALSE(m.graph.forward.ok);
}

}  // namespace
}  // namespace neurarch
