#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/weights.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> seq = {},
                        std::optional<std::int64_t> image_size = {}) {
  model::BuildOptions options;
  options.seq = seq;
  options.image_size = image_size;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(Siglip2Family, NaFlexPatchesThroughALinearStem) {
  auto m = build({{"model_type", "siglip2_vision_model"}});
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "pixels");
  EXPECT_EQ(g.input_shape, (graph::Shape{256, 768}));  // num_patches rows of 3 x 16 x 16 values
  const auto* stem = node(g, "Patch_Embed");
  ASSERT_NE(stem, nullptr);
  EXPECT_EQ(stem->type, graph::NodeType::Linear);
  EXPECT_EQ(node(g, "Resized_Pos_Embed")->out, (graph::Shape{256, 768}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{768}));
  // The stem is an nn.Linear: PEFT's all-linear adapts it.
  plan::Setup setup;
  const auto roles = plan::weight_roles(g, setup);
  for (std::size_t i = 0; i < g.tensors.size(); ++i)
    if (g.tensors[i].name == "vision_model.embeddings.patch_embedding.weight") {
      EXPECT_TRUE(roles[i].lora_target);
    }
}

TEST(Siglip2Family, AnyPatchCountRunsThePositionTableIsResized) {
  // --image-size 512 with 16-px patches: 1024 patches, four times the table's 256 rows.
  auto big = build({{"model_type", "siglip2_vision_model"}}, {}, 512);
  EXPECT_TRUE(big.graph.forward.ok) << big.graph.forward.reason;
  EXPECT_EQ(big.graph.input_shape, (graph::Shape{1024, 768}));
  EXPECT_EQ(big.graph.find_tensor("vision_model.embeddings.position_embedding.weight")->shape,
            (graph::Shape{256, 768}));
  auto tiny = build({{"model_type", "siglip2_vision_model"}}, {}, 8);
  EXPECT_FALSE(tiny.graph.forward.ok);
  EXPECT_THAT(tiny.graph.forward.reason, HasSubstr("an image of 8x8 pixels holds no 16x16 patch"));
  auto odd = build({{"model_type", "siglip2_vision_model"}, {"num_patches", 200}});
  EXPECT_FALSE(odd.graph.forward.ok);
  EXPECT_THAT(odd.graph.forward.reason, HasSubstr("num_patches 200 is not a square grid"));
}

TEST(Siglip2Family, TwoTowersAndClassifier) {
  auto m = build({{"model_type", "siglip2"}});
  const auto& g = m.graph;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].name, "input_ids");
  EXPECT_EQ(g.inputs[1].name, "pixel_values");
  EXPECT_EQ(g.inputs[1].shape, (graph::Shape{256, 768}));
  // --seq sizes the text tower; --image-size the patches.
  auto sized = build({{"model_type", "siglip2"}}, 32, 384);
  EXPECT_EQ(sized.graph.inputs[0].shape, (graph::Shape{32}));
  EXPECT_EQ(sized.graph.inputs[1].shape, (graph::Shape{576, 768}));
  const auto& logits = g.nodes.at(static_cast<std::size_t>(g.nodes.back().inputs.front()));
  EXPECT_EQ(logits.type, graph::NodeType::ContrastiveLogits);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  model::BuildOptions options;
  options.class_name = "Siglip2ForImageClassification";
  auto cls = model::build_model(Config({{"model_type", "siglip2"}, {"num_labels", 5}}, "config.json"), options);
  EXPECT_EQ(cls.graph.find_tensor("classifier.weight")->shape, (graph::Shape{5, 768}));
  EXPECT_EQ(cls.graph.find_tensor("text_model.head.weight"), nullptr);
}

}  // namespace
}  // namespace neurarch
