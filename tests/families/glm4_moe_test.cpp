#include <gtest/gtest.h>

// GLM-4.5 MoE: every ground-truth class, GLM-4.5-Air's published size, and the verifier on the class
// defaults' truncated head width.
#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "unit/lint_test_support.hpp"

TEST(Glm4MoeParameters, Glm45AirTotalAndActive) {
  // zai-org/GLM-4.5-Air's config.json (architecture keys): published 106B total, 12B active.
  auto g = neurarch::model::build_model(neurarch::Config::parse(R"({"architectures": ["Glm4MoeForCausalLM"],
      "model_type": "glm4_moe", "attention_bias": true, "first_k_dense_replace": 1, "head_dim": 128,
      "hidden_size": 4096, "intermediate_size": 10944, "moe_intermediate_size": 1408, "n_group": 1,
      "n_routed_experts": 128, "n_shared_experts": 1, "num_attention_heads": 96, "num_experts_per_tok": 8,
      "num_hidden_layers": 46, "num_key_value_heads": 8, "partial_rotary_factor": 0.5, "use_qk_norm": false,
      "vocab_size": 151552, "tie_word_embeddings": false})", "config.json")).graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.parameter_count(), 106'852'245'504);
  EXPECT_EQ(g.saved_scalars() - g.parameter_count(), 45 * 128);  // fp32 e_score_correction_bias buffers
  EXPECT_EQ(g.find_tensor("model.layers.0.self_attn.q_proj.bias")->shape, (neurarch::graph::Shape{12288}));
  EXPECT_EQ(g.find_tensor("model.layers.0.self_attn.o_proj.bias"), nullptr);
  // Each token skips 120 of 128 experts of 3 x 1408 x 4096 in 45 sparse layers. The card's 12B leaves out
  // both 151552 x 4096 tables (embedding and LM head): 13.42B - 1.24B = 12.18B.
  EXPECT_EQ(g.parameter_count() - g.active_parameter_count(), 45LL * 120 * 3 * 1408 * 4096);
  EXPECT_EQ(g.active_parameter_count(), 13'424'123'904);
}

TEST(Glm4MoeLint, TruncatedHeadWidthRunsSoItIsNotAWillNotRunError) {
  // Glm4MoeConfig()'s 96 heads on hidden 4096 with no head_dim: transformers builds 42-wide heads
  // (q_proj [4032, 4096]) and runs, so the verifier must not call it broken.
  const auto config = lint_test::json::parse(R"({"model_type": "glm4_moe", "hidden_size": 4096,
      "num_attention_heads": 96, "num_key_value_heads": 8, "num_hidden_layers": 2, "n_routed_experts": 4,
      "num_experts_per_tok": 2, "vocab_size": 1000})");
  EXPECT_TRUE(lint_test::of(lint_test::lint(config), "heads-divide-hidden").empty());
  // A family whose reference refuses (BERT) still gets the error.
  EXPECT_FALSE(lint_test::of(lint_test::lint(lint_test::json::parse(
                                 R"({"model_type": "bert", "hidden_size": 130, "num_attention_heads": 12})")),
                             "heads-divide-hidden")
                   .empty());
}
