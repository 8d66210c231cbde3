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

// A 56-px SigLIP tower with 14-px patches: 16 features per crop, all kept ("full").
nlohmann::json small_onevision() {
  return {{"model_type", "llava_onevision"},
          {"architectures", {"LlavaOnevisionForConditionalGeneration"}},
          {"image_grid_pinpoints", {{56, 56}, {56, 112}, {112, 112}, {168, 168}}},
          {"vision_aspect_ratio", "anyres_max_1"},
          {"text_config", {{"model_type", "qwen2"}, {"hidden_size", 256}, {"intermediate_size", 512},
                           {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                           {"vocab_size", 1000}, {"tie_word_embeddings", true}}},
          {"vision_config", {{"model_type", "siglip_vision_model"}, {"hidden_size", 64}, {"intermediate_size", 128},
                             {"num_hidden_layers", 3}, {"num_attention_heads", 4}, {"image_size", 56},
                             {"patch_size", 14}, {"vision_use_head", false}}}};
}

TEST(LlavaOnevisionFamily, AnyresMaxDownscalesTheTiledMap) {
  auto m = build(small_onevision(), 64);
  const auto& g = m.graph;
  // 168x168: 3x3 crops + the whole view; the 12x12 map is 9 crops' worth, 3 times over anyres_max_1's
  // linear size, so it is interpolated to 4x4: 16 + 4 x (4 + 1) tokens.
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{10, 3, 56, 56}));
  EXPECT_EQ(node(g, "Image_Newline")->out, (graph::Shape{36, 256}));
  EXPECT_NE(g.find_tensor("model.image_newline"), nullptr);
  EXPECT_NE(g.find_tensor("model.vision_tower.vision_model.encoder.layers.2.mlp.fc1.weight"), nullptr);
  EXPECT_NE(g.find_tensor("model.language_model.layers.1.self_attn.k_proj.bias"), nullptr);
  // lm_head sits outside `model` and is tied to the text model's embedding here.
  const auto* head = g.find_tensor("lm_head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->tied_to, "model.language_model.embed_tokens.weight");
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{64, 1000}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(LlavaOnevisionFamily, BaseModelHasNoHead) {
  auto config = small_onevision();
  config["architectures"] = {"LlavaOnevisionModel"};
  auto m = build(config, 64);
  EXPECT_NE(m.graph.find_tensor("image_newline"), nullptr);
  EXPECT_NE(m.graph.find_tensor("language_model.norm.weight"), nullptr);
  EXPECT_EQ(m.graph.find_tensor("lm_head.weight"), nullptr);
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{64, 256}));
}

TEST(LlavaOnevisionFamily, AspectRatioMustNameACropBudget) {
  auto config = small_onevision();
  config["vision_aspect_ratio"] = "square";
  EXPECT_THROW(build(config), Error);
}

TEST(LlavaOnevisionFamily, DefaultStrategyDropsATokenSiglipDoesNotHave) {
  auto config = small_onevision();
  config["vision_feature_select_strategy"] = "default";
  auto m = build(config, 64);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("hands on 15"));
}

}  // namespace
}  // namespace neurarch
