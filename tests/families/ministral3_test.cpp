// Ministral 3 on its own and as Mistral 3's language model; the tensors are checked against transformers 5.24.0
// by the fixtures in tests/data/reference (tests/groundtruth_test.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

TEST(Ministral3Family, MistralLayerWithItsOwnDefaultsAndNoWindow) {
  auto g = model::build_model(Config({{"model_type", "ministral3"}, {"num_hidden_layers", 2}}, "config.json")).graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("layers.0.self_attn.q_proj.weight")->shape, (graph::Shape{32 * 128, 4096}));
  EXPECT_EQ(g.find_tensor("embed_tokens.weight")->shape, (graph::Shape{131072, 4096}));
  for (const auto& n : g.nodes) {
    if (n.attention) {
      EXPECT_EQ(n.attention->window, 0);
    }
  }
}

TEST(Ministral3Family, IsAcceptedAsMistral3sLanguageModel) {
  const nlohmann::json config{
      {"model_type", "mistral3"},
      {"architectures", {"Mistral3ForConditionalGeneration"}},
      {"vision_config", {{"model_type", "pixtral"}, {"hidden_size", 64}, {"intermediate_size", 128},
                         {"num_hidden_layers", 1}, {"num_attention_heads", 4}, {"head_dim", 16},
                         {"patch_size", 14}, {"image_size", 56}}},
      {"text_config", {{"model_type", "ministral3"}, {"hidden_size", 64}, {"intermediate_size", 128},
                       {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                       {"head_dim", 16}, {"vocab_size", 1000}}}};
  auto g = model::build_model(Config(config, "config.json")).graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_NE(g.find_tensor("model.language_model.layers.1.self_attn.k_proj.weight"), nullptr);
  EXPECT_NE(g.find_tensor("lm_head.weight"), nullptr);
}

}  // namespace
}  // namespace neurarch
