#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

model::BuiltModel build(nlohmann::json config, std::string cls = "") {
  model::BuildOptions options;
  options.seq = 512;
  options.class_name = std::move(cls);
  return model::build_model(Config(std::move(config), "config.json"), options);
}

nlohmann::json small_shieldgemma2() {
  return {{"model_type", "shieldgemma2"},
          {"mm_tokens_per_image", 16},
          {"text_config", {{"hidden_size", 256}, {"intermediate_size", 512}, {"num_hidden_layers", 2},
                           {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"head_dim", 64},
                           {"vocab_size", 20000}}},
          {"vision_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 2},
                             {"num_attention_heads", 4}, {"image_size", 112}, {"patch_size", 14}}}};
}

TEST(ShieldGemma2Family, YesNoLogitsOfTheWrappedGemma3) {
  auto m = build(small_shieldgemma2());
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{2}));
  EXPECT_EQ(g.find_tensor("model.lm_head.weight")->tied_to, "model.model.language_model.embed_tokens.weight");
  EXPECT_NE(g.find_tensor("model.model.multi_modal_projector.mm_soft_emb_norm.weight"), nullptr);
  auto lm = build(small_shieldgemma2(), "Gemma3ForConditionalGeneration");
  EXPECT_EQ(lm.graph.find_tensor("lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
  EXPECT_EQ(lm.graph.nodes.back().out, (graph::Shape{512, 20000}));
}

TEST(ShieldGemma2Family, TokenIndicesMustBeInTheVocabulary) {
  auto config = small_shieldgemma2();
  config["text_config"]["vocab_size"] = 5000;  // the default yes_token_index 10784 is past it
  auto m = build(config);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("yes_token_index 10784 is outside the vocabulary of 5000 logits"));
}

}  // namespace
}  // namespace neurarch
