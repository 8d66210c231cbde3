#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> seq = {}) {
  model::BuildOptions options;
  options.seq = seq;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

nlohmann::json small_llava() {
  return {{"model_type", "llava"},
          {"text_config", {{"model_type", "llama"}, {"hidden_size", 256}, {"intermediate_size", 512},
                           {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"vocab_size", 1000}}},
          {"vision_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 3},
                             {"num_attention_heads", 4}, {"image_size", 56}, {"patch_size", 14}}}};
}

TEST(LlavaFamily, VisionTowerProjectorAndLanguageModelInOneGraph) {
  auto m = build(small_llava(), 64);
  const auto& g = m.graph;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].name, "pixel_values");
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{3, 56, 56}));
  EXPECT_EQ(g.inputs[1].name, "input_ids");
  EXPECT_EQ(g.inputs[1].shape, (graph::Shape{64}));
  // The language model's prompt is the main input.
  EXPECT_EQ(g.input_kind, "tokens");
  // Layer -2 of a 3-layer tower is layer 1's output; the class token is dropped: 16 patches.
  const auto* proj = node(g, "Projector_Linear_1");
  ASSERT_NE(proj, nullptr);
  EXPECT_EQ(proj->out, (graph::Shape{16, 256}));
  EXPECT_EQ(g.nodes.at(static_cast<std::size_t>(proj->inputs.front())).name, "Vision_Add_1_2");
  EXPECT_EQ(node(g, "Projector_Linear_2")->out, (graph::Shape{16, 256}));
  // The LM, built by the llama family, reads the projected features at its embedding.
  const auto* embed = node(g, "LM_Token_Embedding");
  ASSERT_NE(embed, nullptr);
  ASSERT_EQ(embed->inputs.size(), 2u);
  EXPECT_EQ(embed->inputs[1], node(g, "Projector_Linear_2")->index);
  EXPECT_NE(g.find_tensor("language_model.model.layers.1.mlp.gate_proj.weight"), nullptr);
  EXPECT_NE(g.find_tensor("language_model.lm_head.weight"), nullptr);
  EXPECT_NE(g.find_tensor("vision_tower.vision_model.encoder.layers.2.mlp.fc1.weight"), nullptr);
  EXPECT_EQ(node(g, "LM_Attention_0")->block, 3);
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{64, 1000}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(LlavaFamily, PromptMustHoldTheImageTokens) {
  auto m = build(small_llava(), 8);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("cannot hold the 16 image tokens"));
}

TEST(LlavaFamily, FullStrategyAndSeveralFeatureLayers) {
  auto config = small_llava();
  config["vision_feature_select_strategy"] = "full";
  config["vision_feature_layer"] = {-1, -3};
  auto m = build(config, 64);
  EXPECT_EQ(m.graph.find_tensor("multi_modal_projector.linear_1.weight")->shape, (graph::Shape{256, 128}));
  EXPECT_EQ(node(m.graph, "Projector_Linear_1")->out, (graph::Shape{17, 256}));
  EXPECT_EQ(node(m.graph, "Projector_Linear_1")->inputs.size(), 2u);
}

TEST(LlavaFamily, OtherDecodersThroughTheRegistry) {
  auto config = small_llava();
  config["text_config"]["model_type"] = "qwen2";
  config["text_config"]["num_key_value_heads"] = 2;
  auto m = build(config, 64);
  EXPECT_EQ(m.graph.find_tensor("language_model.model.layers.0.self_attn.k_proj.bias")->shape, (graph::Shape{128}));
  config["text_config"]["model_type"] = "not_a_decoder";
  EXPECT_THROW(build(config), Error);
}

TEST(LlavaFamily, ProjectorWritesTheLanguageModelsDefaultWidth) {
  // A text_config saved as a diff from its defaults leaves hidden_size out: Gemma's default is 3072 wide.
  auto config = small_llava();
  config["text_config"] = {{"model_type", "gemma"}, {"num_hidden_layers", 1}, {"vocab_size", 1000}};
  auto m = build(config, 64);
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(m.graph.find_tensor("multi_modal_projector.linear_2.weight")->shape, (graph::Shape{3072, 3072}));
}

TEST(LlavaFamily, SiglipVisionTower) {
  auto config = small_llava();
  config["vision_config"]["model_type"] = "siglip_vision_model";
  auto m = build(config, 64);
  EXPECT_NE(m.graph.find_tensor("vision_tower.vision_model.head.probe"), nullptr);
  // No class token, yet "default" still drops the first token.
  EXPECT_EQ(node(m.graph, "Projector_Linear_1")->out, (graph::Shape{15, 256}));
}

}  // namespace
}  // namespace neurarch
