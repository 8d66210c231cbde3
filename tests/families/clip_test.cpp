#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/activations.hpp"
#include "plan/weights.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

model::BuiltModel build(nlohmann::json config, const std::string& cls = "", std::optional<std::int64_t> seq = {},
                        std::optional<std::int64_t> size = {}) {
  model::BuildOptions options;
  options.class_name = cls;
  options.seq = seq;
  options.image_size = size;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(ClipFamily, TwoTowersTwoInputsOneGraph) {
  auto m = build({{"model_type", "clip"}});
  const auto& g = m.graph;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].name, "input_ids");
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{77}));
  EXPECT_EQ(g.inputs[1].name, "pixel_values");
  EXPECT_EQ(g.inputs[1].kind, "pixels");
  EXPECT_EQ(g.inputs[1].shape, (graph::Shape{3, 224, 224}));
  // The main input is the first argument of forward().
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_EQ(g.input_shape, (graph::Shape{77}));
  EXPECT_EQ(node(g, "Text_Attention_11")->out, (graph::Shape{77, 512}));
  EXPECT_TRUE(node(g, "Text_Attention_0")->attention->causal);
  EXPECT_EQ(node(g, "Vision_Attention_11")->out, (graph::Shape{50, 768}));
  EXPECT_FALSE(node(g, "Vision_Attention_0")->attention->causal);
  // Blocks stay distinct across the towers: text 0-11, vision 12-23.
  EXPECT_EQ(node(g, "Text_Attention_11")->block, 11);
  EXPECT_EQ(node(g, "Vision_Attention_0")->block, 12);
  const auto* logits = node(g, "Contrastive_Logits");
  ASSERT_NE(logits, nullptr);
  EXPECT_EQ(logits->inputs.size(), 2u);
  EXPECT_EQ(g.find_tensor("logit_scale")->shape, graph::Shape{});
  EXPECT_EQ(g.nodes.back().inputs.front(), logits->index);
  EXPECT_EQ(g.saved_scalars(), 151'277'313);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(ClipFamily, TextLongerThanPositionsFails) {
  auto m = build({{"model_type", "clip"}}, "", 100);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("77 learned positions"));
  EXPECT_EQ(m.graph.nodes.at(static_cast<std::size_t>(m.graph.forward.node)).name, "Text_Learned_Pos_Embed");
}

TEST(ClipFamily, VisionRefusesAnotherImageSize) {
  auto m = build({{"model_type", "clip_vision_model"}}, "", {}, 336);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("interpolate_pos_encoding=True"));
}

TEST(ClipFamily, ProjectionWidthsMustAgree) {
  auto m = build({{"model_type", "clip"}, {"projection_dim", 256}});
  EXPECT_EQ(m.graph.find_tensor("visual_projection.weight")->shape, (graph::Shape{256, 768}));
  EXPECT_EQ(m.graph.find_tensor("text_projection.weight")->shape, (graph::Shape{256, 512}));
  EXPECT_TRUE(m.graph.forward.ok);
}

TEST(ClipFamily, SubConfigsAreRead) {
  auto m = build({{"model_type", "clip"},
                  {"text_config", {{"hidden_size", 768}, {"num_hidden_layers", 2}, {"num_attention_heads", 12}}},
                  {"vision_config", {{"patch_size", 14}, {"image_size", 336}, {"num_hidden_layers", 3}}}});
  const auto& g = m.graph;
  EXPECT_EQ(g.inputs[1].shape, (graph::Shape{3, 336, 336}));
  EXPECT_EQ(g.find_tensor("vision_model.embeddings.position_embedding.weight")->shape, (graph::Shape{577, 768}));
  EXPECT_EQ(g.find_tensor("text_projection.weight")->shape, (graph::Shape{512, 768}));
  EXPECT_EQ(node(g, "Vision_Attention_0")->block, 2);
  EXPECT_EQ(g.find_tensor("vision_model.encoder.layers.3.mlp.fc1.weight"), nullptr);
}

TEST(ClipFamily, BadSubConfigNamesTheKey) {
  try {
    build({{"model_type", "clip"}, {"text_config", 3}});
    FAIL() << "accepted a non-object text_config";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("text_config"));
  }
}

TEST(ClipFamily, WithProjectionClasses) {
  auto text = build({{"model_type", "clip_text_model"}}, "CLIPTextModelWithProjection");
  EXPECT_EQ(text.graph.find_tensor("text_projection.weight")->shape, (graph::Shape{512, 512}));
  EXPECT_EQ(text.graph.nodes.back().out, (graph::Shape{512}));
  auto vision = build({{"model_type", "clip_vision_model"}}, "CLIPVisionModelWithProjection");
  EXPECT_EQ(vision.graph.find_tensor("visual_projection.weight")->shape, (graph::Shape{512, 768}));
}

TEST(ClipFamily, ImageClassificationReadsTheVisionTowerOnly) {
  auto m = build({{"model_type", "clip"}, {"num_labels", 10}}, "CLIPForImageClassification");
  ASSERT_EQ(m.graph.inputs.size(), 1u);
  EXPECT_EQ(m.graph.input_kind, "pixels");
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{10}));
  EXPECT_EQ(m.graph.find_tensor("logit_scale"), nullptr);
}

// The contrastive node keeps both towers' embeddings twice (norm input, matmul input) and two norms;
// the text tower's lookups save token ids, the vision tower's positions do not.
TEST(ClipFamily, ActivationRulesFollowEachInput) {
  auto m = build({{"model_type", "clip"}});
  plan::Setup setup;
  auto model = plan::saved_activations(m.graph, setup, plan::weight_roles(m.graph, setup));
  const auto* logits = node(m.graph, "Contrastive_Logits");
  const auto& a = model.nodes.at(static_cast<std::size_t>(logits->index));
  ASSERT_EQ(a.saved.size(), 3u);
  EXPECT_EQ(a.saved[0].elements, 1024);
  EXPECT_EQ(a.saved[0].bytes(1), 1024 * 4);  // fp32 under autocast
  EXPECT_EQ(a.saved[2].bytes(1), 1024 * 2);
  auto has_lookup = [&](const std::string& name) {
    for (const auto& t : model.nodes.at(static_cast<std::size_t>(node(m.graph, name)->index)).saved)
      if (t.what == "lookup indices") return true;
    return false;
  };
  EXPECT_TRUE(has_lookup("Text_Learned_Pos_Embed"));
  EXPECT_FALSE(has_lookup("Vision_Learned_Pos_Embed"));
}

}  // namespace
}  // namespace neurarch
