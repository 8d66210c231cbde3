#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> seq) {
  model::BuildOptions options;
  options.seq = seq;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

nlohmann::json small_mistral3() {
  return {{"model_type", "mistral3"}, {"architectures", {"Mistral3ForConditionalGeneration"}},
          {"text_config", {{"model_type", "mistral"}, {"hidden_size", 128}, {"intermediate_size", 256},
                           {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                           {"vocab_size", 500}}},
          {"vision_config", {{"model_type", "pixtral"}, {"hidden_size", 32}, {"intermediate_size", 64},
                             {"num_hidden_layers", 2}, {"num_attention_heads", 2}, {"image_size", 112},
                             {"patch_size", 14}}}};
}

TEST(Mistral3Family, MergedPatchesFillThePrompt) {
  // 112 px: 8x8 patches, merged 2x2 into 16 image features.
  auto m = build(small_mistral3(), 32);
  const auto& g = m.graph;
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{3, 112, 112}));
  EXPECT_EQ(node(g, "Vision_Attention_0")->out, (graph::Shape{64, 32}));
  EXPECT_TRUE(node(g, "Vision_Attention_0")->attention->rotary);
  EXPECT_EQ(node(g, "Projector_Patch_Merger")->out, (graph::Shape{16, 32}));
  EXPECT_EQ(g.find_tensor("model.multi_modal_projector.patch_merger.merging_layer.weight")->shape,
            (graph::Shape{32, 128}));
  EXPECT_EQ(node(g, "LM_Token_Embedding")->inputs.back(), node(g, "Projector_Linear_2")->index);
  EXPECT_NE(g.find_tensor("model.language_model.layers.1.mlp.gate_proj.weight"), nullptr);
  EXPECT_NE(g.find_tensor("lm_head.weight"), nullptr);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  auto short_prompt = build(small_mistral3(), 8);
  EXPECT_THAT(short_prompt.graph.forward.reason, HasSubstr("cannot hold the 16 image tokens"));
}

TEST(Mistral3Family, AbsentSubConfigsAreMistralSmall31s) {
  auto m = build({{"model_type", "mistral3"}, {"architectures", {"Mistral3ForConditionalGeneration"}}}, 4096);
  EXPECT_EQ(m.graph.saved_scalars(), 24'011'361'280);
  EXPECT_EQ(m.graph.inputs[0].shape, (graph::Shape{3, 1540, 1540}));
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
}

}  // namespace
}  // namespace neurarch
