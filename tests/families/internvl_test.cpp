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

nlohmann::json small_tower() {
  return {{"model_type", "internvl_vision"}, {"hidden_size", 64}, {"intermediate_size", 128},
          {"num_hidden_layers", 2},          {"num_attention_heads", 4}, {"image_size", 112},
          {"patch_size", 14}};
}

TEST(InternVLVisionFamily, ClassTokenLayerScaleAndOptionalNorms) {
  auto m = build(small_tower());
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 112, 112}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{1 + 64, 64}));
  EXPECT_NE(g.find_tensor("encoder.layer.1.lambda_2"), nullptr);
  EXPECT_EQ(g.find_tensor("layernorm.weight"), nullptr);  // use_mean_pooling: no final norm
  EXPECT_EQ(g.find_tensor("encoder.layer.0.attention.q_norm.weight"), nullptr);
  auto with_norms = small_tower();
  with_norms["use_qk_norm"] = true;
  with_norms["use_mean_pooling"] = false;
  with_norms["norm_type"] = "rms_norm";
  with_norms["attention_bias"] = true;
  const auto& h = build(with_norms).graph;
  EXPECT_EQ(h.find_tensor("encoder.layer.0.attention.q_norm.weight")->shape, (graph::Shape{64}));
  EXPECT_NE(h.find_tensor("encoder.layer.0.attention.k_proj.bias"), nullptr);
  EXPECT_EQ(h.find_tensor("encoder.layer.0.layernorm_before.bias"), nullptr);  // RMSNorm
  EXPECT_NE(h.find_tensor("layernorm.bias"), nullptr);  // the final norm is a LayerNorm whatever norm_type says
  // Another image size resizes the positions: it runs.
  auto big = build(small_tower(), {}, 224);
  EXPECT_TRUE(big.graph.forward.ok) << big.graph.forward.reason;
  EXPECT_EQ(big.graph.nodes.back().out, (graph::Shape{1 + 256, 64}));
}

TEST(InternVLFamily, PixelShuffleQuartersTheTokensIntoTheLanguageModel) {
  nlohmann::json c{{"model_type", "internvl"},
                   {"architectures", {"InternVLForConditionalGeneration"}},
                   {"vision_config", small_tower()},
                   {"text_config", {{"model_type", "qwen2"}, {"hidden_size", 96}, {"intermediate_size", 192},
                                    {"num_hidden_layers", 2}, {"num_attention_heads", 4},
                                    {"num_key_value_heads", 2}, {"vocab_size", 500}}}};
  auto m = build(c, 40);
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "tokens");
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].name, "pixel_values");
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{3, 112, 112}));
  // 8 x 8 patches (class token dropped) shuffled 2 x 2: 16 tokens of 4 x 64.
  EXPECT_EQ(node(g, "Projector_LayerNorm")->out, (graph::Shape{16, 256}));
  EXPECT_EQ(g.find_tensor("model.multi_modal_projector.linear_1.weight")->shape, (graph::Shape{96, 256}));
  EXPECT_NE(g.find_tensor("lm_head.weight"), nullptr);
  auto short_prompt = build(c, 10);
  EXPECT_FALSE(short_prompt.graph.forward.ok);
  EXPECT_THAT(short_prompt.graph.forward.reason, ::testing::HasSubstr("cannot hold the 16 image tokens"));
  c["vision_config"]["image_size"] = 98;  // 7 x 7 patches cannot be shuffled 2 x 2
  auto odd = build(c, 40);
  EXPECT_FALSE(odd.graph.forward.ok);
  EXPECT_THAT(odd.graph.forward.reason, ::testing::HasSubstr("cannot be pixel-shuffled"));
}

}  // namespace
}  // namespace neurarch
