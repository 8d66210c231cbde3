#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

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

nlohmann::json small() {
  return {{"model_type", "glm4v"},
          {"architectures", {"Glm4vForConditionalGeneration"}},
          {"vision_config", {{"depth", 2}, {"hidden_size", 64}, {"num_heads", 4}, {"out_hidden_size", 96},
                             {"intermediate_size", 160}, {"image_size", 112}, {"patch_size", 14}}},
          {"text_config", {{"model_type", "glm4v_text"}, {"hidden_size", 96}, {"intermediate_size", 192},
                           {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                           {"vocab_size", 500}}}};
}

TEST(Glm4vFamily, PatchesDownsampledByAConvolutionIntoTheLanguageModel) {
  auto m = build(small(), 40);
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "tokens");
  ASSERT_EQ(g.inputs.size(), 2u);
  // 112 px: 8 x 8 patches, each a row of 3 x 2 x 14 x 14 values.
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{64, 3 * 2 * 14 * 14}));
  const auto* down = node(g, "Vision_Downsample");
  ASSERT_NE(down, nullptr);
  EXPECT_EQ(down->type, graph::NodeType::Conv2d);
  EXPECT_EQ(down->out, (graph::Shape{96, 4, 4}));
  EXPECT_EQ(node(g, "Vision_Merger_MLP")->out, (graph::Shape{16, 96}));
  EXPECT_EQ(g.find_tensor("model.visual.blocks.0.mlp.gate_proj.weight")->shape, (graph::Shape{96, 64}));
  EXPECT_EQ(g.find_tensor("model.visual.merger.gate_proj.weight")->shape, (graph::Shape{160, 96}));
  EXPECT_NE(g.find_tensor("lm_head.weight"), nullptr);
}

TEST(Glm4vFamily, ThePhotoIsRoundedToWholeMergedPatches) {
  // 150 px rounds to 140 (5 x 28): 10 x 10 patches, 25 image tokens; the position table stays 8 x 8.
  auto m = build(small(), 40, 150);
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(m.graph.inputs[0].shape.front(), 100);
  EXPECT_EQ(m.graph.find_tensor("model.visual.embeddings.position_embedding.weight")->shape,
            (graph::Shape{64, 64}));
  auto short_prompt = build(small(), 20, 150);
  EXPECT_FALSE(short_prompt.graph.forward.ok);
  EXPECT_THAT(short_prompt.graph.forward.reason, ::testing::HasSubstr("cannot hold the 25 image tokens"));
  auto tiny = build(small(), 40, 20);
  EXPECT_FALSE(tiny.graph.forward.ok);
  EXPECT_THAT(tiny.graph.forward.reason, ::testing::HasSubstr("smaller than one 28x28 group"));
  auto narrow = small();
  narrow["vision_config"]["out_hidden_size"] = 80;
  auto mismatch = build(narrow, 40);
  EXPECT_FALSE(mismatch.graph.forward.ok);
  EXPECT_THAT(mismatch.graph.forward.reason, ::testing::HasSubstr("80-wide features into a 96-wide"));
}

}  // namespace
}  // namespace neurarch
