#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> seq = {},
                        std::optional<std::int64_t> image = {}) {
  model::BuildOptions options;
  options.seq = seq;
  options.image_size = image;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(ViltFamily, OneStreamOverTextThenPatches) {
  auto m = build({{"model_type", "vilt"}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_EQ(g.input_shape, (graph::Shape{40}));
  // 384 / 32 = 12: 144 patches and the class token follow the 40 text tokens.
  EXPECT_EQ(node(g, "Attention_0").attention->query_len, 40 + 145);
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{768}));
}

TEST(ViltFamily, PositionsAreResizedToAnyImageAndMaxImageLengthCaps) {
  auto m = build({{"model_type", "vilt"}}, 16, 640);
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Attention_0").attention->query_len, 16 + 1 + 400);
  EXPECT_EQ(m.graph.find_tensor("embeddings.position_embeddings")->shape, (graph::Shape{1, 145, 768}));
  auto capped = build({{"model_type", "vilt"}, {"max_image_length", 200}}, 16, 640);
  EXPECT_EQ(node(capped.graph, "Attention_0").attention->query_len, 16 + 1 + 200);
}

}  // namespace
}  // namespace neurarch
