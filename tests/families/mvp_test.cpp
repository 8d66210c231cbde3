#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "support/family_graph.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Graph;
using neurarch::graph::Shape;
using neurarch::testing::build_graph;
using neurarch::testing::find_node;

Config tiny(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "mvp", "d_model": 32, "encoder_layers": 2, "decoder_layers": 3,
                           "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64,
                           "decoder_ffn_dim": 64, "vocab_size": 100, "max_position_embeddings": 128,
                           "use_prompt": true, "prompt_length": 5, "prompt_mid_dim": 16)" + extra + "}",
                       "config.json");
}

}  // namespace

TEST(MvpGraph, PromptsPrefixEveryAttentionsKeys) {
  auto g = build_graph(tiny(), "MvpForConditionalGeneration", 40, 10);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.encoder.self_attn_prompt.prompt_embedding.weight")->shape, (Shape{5, 32}));
  EXPECT_EQ(g.find_tensor("model.encoder.self_attn_prompt.prompt_trans.0.weight")->shape, (Shape{16, 32}));
  EXPECT_EQ(g.find_tensor("model.encoder.self_attn_prompt.prompt_trans.2.weight")->shape, (Shape{2 * 2 * 32, 16}));
  EXPECT_EQ(g.find_tensor("model.decoder.cross_attn_prompt.prompt_trans.2.bias")->shape, (Shape{3 * 2 * 32}));
  EXPECT_NE(g.find_tensor("model.decoder.self_attn_prompt.prompt_embedding.weight"), nullptr);
  EXPECT_EQ(find_node(g, "Attention_1")->attention->kv_len, 45);
  EXPECT_EQ(find_node(g, "Decoder_Attention_2")->attention->kv_len, 15);
  EXPECT_EQ(find_node(g, "Decoder_Cross_Attention_0")->attention->kv_len, 45);
  // Without use_prompt the model is BART's.
  auto plain = build_graph(tiny(R"(, "use_prompt": false)"), "MvpForConditionalGeneration", 40, 10);
  EXPECT_EQ(plain.find_tensor("model.encoder.self_attn_prompt.prompt_embedding.weight"), nullptr);
  EXPECT_EQ(find_node(plain, "Attention_1")->attention->kv_len, 40);
  const std::int64_t prompts = 3 * (5 * 32 + 16 * 32 + 16) + (2 * 2 * 32 * 16 + 2 * 2 * 32) +
                               2 * (3 * 2 * 32 * 16 + 3 * 2 * 32);
  EXPECT_EQ(g.saved_scalars() - plain.saved_scalars(), prompts);
}

TEST(MvpGraph, DecoderOnlyWrapperHasNoPrompts) {
  auto g = build_graph(tiny(), "MvpForCausalLM", 40, 10);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  for (const auto& t : g.tensors) EXPECT_EQ(t.name.find("prompt"), std::string::npos) << t.name;
}
