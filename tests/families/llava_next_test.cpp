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

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> seq = {},
                        std::optional<std::int64_t> image = {}) {
  model::BuildOptions options;
  options.seq = seq;
  options.image_size = image;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

// A 56-px tower with 14-px patches: 4x4 = 16 features per crop.
nlohmann::json small_llava_next() {
  return {{"model_type", "llava_next"},
          {"image_grid_pinpoints", {{56, 112}, {112, 56}, {112, 112}}},
          {"text_config", {{"model_type", "llama"}, {"hidden_size", 256}, {"intermediate_size", 512},
                           {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"vocab_size", 1000}}},
          {"vision_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 3},
                             {"num_attention_heads", 4}, {"image_size", 56}, {"patch_size", 14}}}};
}

TEST(LlavaNextFamily, LargestPinpointByDefault) {
  auto m = build(small_llava_next(), 128);
  const auto& g = m.graph;
  ASSERT_EQ(g.inputs.size(), 2u);
  // 112x112: a 2x2 grid of crops plus the whole view, all through the tower at once.
  EXPECT_EQ(g.inputs[0].name, "pixel_values");
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{5, 3, 56, 56}));
  EXPECT_EQ(node(g, "Vision_Attention_0")->out, (graph::Shape{5, 17, 64}));
  EXPECT_EQ(node(g, "Vision_Attention_0")->attention->query_len, 17);
  EXPECT_EQ(node(g, "Projector_Linear_2")->out, (graph::Shape{5, 16, 256}));
  // 16 whole-view features + 8 rows of 8 features and a newline each.
  const auto* packed = node(g, "Image_Newline");
  ASSERT_NE(packed, nullptr);
  EXPECT_EQ(packed->out, (graph::Shape{88, 256}));
  EXPECT_EQ(g.find_tensor("image_newline")->shape, (graph::Shape{256}));
  EXPECT_EQ(node(g, "LM_Token_Embedding")->inputs.back(), packed->index);
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(LlavaNextFamily, SmallerPhotoIsUnpadded) {
  // 56x56 best fits the 56x112 pinpoint: 2 crops + the whole view; the padded half of the map is cut.
  auto m = build(small_llava_next(), 128, 56);
  EXPECT_EQ(m.graph.inputs[0].shape, (graph::Shape{3, 3, 56, 56}));
  EXPECT_EQ(node(m.graph, "Image_Newline")->out, (graph::Shape{36, 256}));
}

TEST(LlavaNextFamily, PromptMustHoldTheImageTokens) {
  auto m = build(small_llava_next(), 64);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("cannot hold the 88 image tokens"));
  // Without --seq the prompt grows to hold them.
  auto config = small_llava_next();
  config["text_config"]["max_position_embeddings"] = 64;
  auto grown = build(config);
  EXPECT_TRUE(grown.graph.forward.ok) << grown.graph.forward.reason;
  EXPECT_EQ(grown.graph.input_shape, (graph::Shape{88}));
}

TEST(LlavaNextFamily, FullStrategyKeepsTheClassTokenWhichCannotBeRetiled) {
  auto config = small_llava_next();
  config["vision_feature_select_strategy"] = "full";
  auto m = build(config, 128);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("re-tiles 4x4 features per crop, but the tower hands on 17"));
}

TEST(LlavaNextFamily, BadPinpointsAreRefused) {
  auto config = small_llava_next();
  config["image_grid_pinpoints"] = {{56}};
  EXPECT_THROW(build(config), Error);
}

}  // namespace
}  // namespace neurarch
