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
  return {{"model_type", "lfm2-vl"},
          {"architectures", {"Lfm2VlForConditionalGeneration"}},
          {"projector_hidden_size", 80},
          {"vision_config", {{"model_type", "siglip2_vision_model"}, {"hidden_size", 64}, {"intermediate_size", 128},
                             {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_patches", 64},
                             {"vision_use_head", false}}},
          {"text_config", {{"model_type", "lfm2"}, {"hidden_size", 96}, {"intermediate_size", 192},
                           {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                           {"vocab_size", 500}, {"layer_types", {"conv", "full_attention"}}}}};
}

TEST(Lfm2VlFamily, PixelUnshuffleIntoLfm2) {
  auto m = build(small(), 32);
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "tokens");
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{64, 3 * 16 * 16}));
  // 8 x 8 patches unshuffled 2 x 2: 16 tokens of 4 x 64.
  EXPECT_EQ(node(g, "Projector_LayerNorm")->out, (graph::Shape{16, 256}));
  EXPECT_EQ(node(g, "Projector_Linear_2")->out, (graph::Shape{16, 96}));
  // LFM2 ties its head by default.
  const auto* head = g.find_tensor("lm_head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->tied_to, "model.language_model.embed_tokens.weight");
  auto untied = small();
  untied["text_config"]["tie_embedding"] = false;
  EXPECT_TRUE(build(untied, 32).graph.find_tensor("lm_head.weight")->tied_to.empty());
}

TEST(Lfm2VlFamily, TheImageSizeSetsThePatchGrid) {
  auto m = build(small(), 300, 512);  // 32 x 32 patches -> 256 image tokens
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "Projector_LayerNorm")->out, (graph::Shape{256, 256}));
  auto odd = build(small(), 300, 48);  // 3 x 3 patches cannot be unshuffled 2 x 2
  EXPECT_FALSE(odd.graph.forward.ok);
  EXPECT_THAT(odd.graph.forward.reason, ::testing::HasSubstr("cannot be pixel-unshuffled"));
}

}  // namespace
}  // namespace neurarch

namespace neurarch {
namespace {

TEST(Lfm2VlFamily, TheReferenceSpellingBuildsTheSameModel) {
  // The Hub's LFM2-VL configs say "lfm2_vl" (transformers registers that spelling); older files say "lfm2-vl".
  auto dash = small();
  auto underscore = small();
  underscore["model_type"] = "lfm2_vl";
  const auto a = build(dash).graph;
  const auto b = build(underscore).graph;
  EXPECT_TRUE(b.forward.ok) << b.forward.reason;
  EXPECT_EQ(a.saved_scalars(), b.saved_scalars());
  EXPECT_EQ(a.tensors.size(), b.tensors.size());
}

}  // namespace
}  // namespace neurarch
