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

// A small Idefics2: 2-layer tower, 2-layer perceiver, 2-layer Mistral.
nlohmann::json small() {
  return {{"model_type", "idefics2"},
          {"architectures", {"Idefics2ForConditionalGeneration"}},
          {"vision_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 2},
                             {"num_attention_heads", 4}, {"image_size", 64}, {"patch_size", 16}}},
          {"perceiver_config", {{"resampler_n_latents", 8}, {"resampler_depth", 2}, {"resampler_n_heads", 4},
                                {"num_key_value_heads", 2}, {"resampler_head_dim", 16}}},
          {"text_config", {{"model_type", "mistral"}, {"hidden_size", 96}, {"intermediate_size", 192},
                           {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                           {"vocab_size", 500}}}};
}

TEST(Idefics2Family, PerceiverResamplesThePatchesToItsLatents) {
  auto m = build(small(), 32);
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_EQ(g.input_shape, (graph::Shape{32}));
  EXPECT_EQ(g.inputs[0].name, "pixel_values");
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{3, 64, 64}));
  EXPECT_EQ(g.inputs[1].name, "input_ids");
  // 16 patches of the tower's width projected to the text width.
  EXPECT_EQ(node(g, "Connector_Modality_Projection")->out, (graph::Shape{16, 96}));
  // The latents read keys and values over the 16 projected patches and the 8 latents themselves.
  const auto* attention = node(g, "Connector_Attention_1");
  ASSERT_NE(attention, nullptr);
  ASSERT_TRUE(attention->attention.has_value());
  EXPECT_EQ(attention->attention->query_len, 8);
  EXPECT_EQ(attention->attention->kv_len, 16 + 8);
  EXPECT_EQ(attention->attention->kv_heads, 2);
  EXPECT_EQ(attention->out, (graph::Shape{8, 96}));
  // No SDPA path in the reference: the tower, the perceiver and the text model all keep their score matrices.
  for (const char* name : {"Vision_Attention_0", "Connector_Attention_0", "LM_Attention_1"}) {
    ASSERT_NE(node(g, name), nullptr) << name;
    EXPECT_FALSE(node(g, name)->attention->sdpa) << name;
  }
  // The perceiver's width follows the text model, whatever perceiver_config says.
  auto wide = small();
  wide["perceiver_config"]["hidden_size"] = 4096;
  EXPECT_EQ(build(wide, 32).graph.find_tensor("model.connector.perceiver_resampler.latents")->shape,
            (graph::Shape{8, 96}));
}

TEST(Idefics2Family, ThePromptMustHoldTheLatents) {
  auto m = build(small(), 4);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, ::testing::HasSubstr("cannot hold the 8 image tokens"));
  // Any image size runs: the patch count changes, the image tokens do not.
  auto big = build(small(), 32, 128);
  EXPECT_TRUE(big.graph.forward.ok) << big.graph.forward.reason;
  EXPECT_EQ(node(big.graph, "Connector_Modality_Projection")->out, (graph::Shape{64, 96}));
  EXPECT_EQ(node(big.graph, "Connector_Attention_0")->attention->kv_len, 64 + 8);
}

}  // namespace
}  // namespace neurarch
