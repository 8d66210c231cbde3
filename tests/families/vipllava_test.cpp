#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(VipllavaFamily, SeveralLayersNormedThenProjected) {
  nlohmann::json config{
      {"model_type", "vipllava"},
      {"vision_feature_layers", {-1, 0}},
      {"text_config", {{"model_type", "llama"}, {"hidden_size", 256}, {"intermediate_size", 512},
                       {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"vocab_size", 1000}}},
      {"vision_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 3},
                         {"num_attention_heads", 4}, {"image_size", 56}, {"patch_size", 14}}}};
  model::BuildOptions options;
  options.seq = 64;
  auto m = model::build_model(Config(config, "config.json"), options);
  const auto& g = m.graph;
  // Two layers of width 64, concatenated; the class token is always dropped: 16 tokens.
  EXPECT_EQ(g.find_tensor("multi_modal_projector.projector_layernorm.weight")->shape, (graph::Shape{128}));
  EXPECT_EQ(g.find_tensor("multi_modal_projector.linear_1.weight")->shape, (graph::Shape{256, 128}));
  const auto* norm = node(g, "Projector_LayerNorm");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->out, (graph::Shape{16, 128}));
  ASSERT_EQ(norm->inputs.size(), 2u);
  EXPECT_EQ(g.nodes.at(static_cast<std::size_t>(norm->inputs[0])).name, "Vision_Add_2_2");
  EXPECT_EQ(g.nodes.at(static_cast<std::size_t>(norm->inputs[1])).name, "Vision_Pre_LayerNorm");
  EXPECT_EQ(node(g, "LM_Token_Embedding")->inputs.back(), node(g, "Projector_Linear_2")->index);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

}  // namespace
}  // namespace neurarch
