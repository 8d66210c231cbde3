// GPT-OSS: every ground-truth class, the published sizes of gpt-oss-20b / -120b, and what the planner
// makes of its bare expert parameters, their biases and its eager-only attention with sinks.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/memory.hpp"
#include "plan/weights.hpp"

using namespace neurarch;

namespace {

// openai/gpt-oss-20b's config.json (architecture keys; layer_types is the config's own default).
constexpr const char* kGptOss20B = R"({"architectures": ["GptOssForCausalLM"], "model_type": "gpt_oss",
  "attention_bias": true, "head_dim": 64, "hidden_act": "silu", "hidden_size": 2880, "intermediate_size": 2880,
  "max_position_embeddings": 131072, "num_attention_heads": 64, "num_experts_per_tok": 4, "num_hidden_layers": 24,
  "num_key_value_heads": 8, "num_local_experts": 32, "sliding_window": 128, "tie_word_embeddings": false,
  "vocab_size": 201088, "rope_theta": 150000, "rope_scaling": {"rope_type": "yarn", "factor": 32.0,
  "beta_fast": 32.0, "beta_slow": 1.0, "truncate": false, "original_max_position_embeddings": 4096}})";

graph::Graph build(const char* json) { return model::build_model(Config::parse(json, "config.json")).graph; }

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

TEST(GptOssParameters, TwentyBTotalAndActiveMatchTheModelCard) {
  auto g = build(kGptOss20B);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Model card (openai/gpt-oss-20b): 20.91B total, 3.61B active. The card counts the unembedding but
  // not the input embedding table as active; neurarch counts every tensor a token touches except
  // the experts it skips, so its figure is the card's plus the 201088 x 2880 embedding.
  EXPECT_EQ(g.saved_scalars(), 20'914'757'184);
  const std::int64_t expert = 2880LL * 5760 + 5760 + 2880LL * 2880 + 2880;  // gate_up, down and their biases
  EXPECT_EQ(g.parameter_count() - g.active_parameter_count(), 24 * 28 * expert);
  EXPECT_EQ(g.active_parameter_count(), 4'187'440'704);
  EXPECT_EQ(g.active_parameter_count() - 201088LL * 2880, 3'608'307'264);
}

TEST(GptOssParameters, DefaultsAreThe120BModel) {
  auto g = build(R"({"model_type": "gpt_oss", "architectures": ["GptOssForCausalLM"]})");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Model card (openai/gpt-oss-120b): 116.83B total, 5.13B active (input embedding excluded, as above).
  EXPECT_EQ(g.saved_scalars(), 116'829'156'672);
  EXPECT_EQ(g.active_parameter_count() - 201088LL * 2880, 5'132'849'472);
}

TEST(GptOssGraph, AlternatingWindowsEagerAttentionAndSinks) {
  auto g = build(kGptOss20B);
  const auto* a0 = node(g, "Attention_0");
  const auto* a1 = node(g, "Attention_1");
  ASSERT_TRUE(a0 && a1 && a0->attention && a1->attention);
  EXPECT_EQ(a0->attention->window, 128);
  EXPECT_EQ(a1->attention->window, 0);
  EXPECT_FALSE(a0->attention->sdpa);  // no SDPA kernel takes the sink logits
  EXPECT_TRUE(a0->attention->rotary);
  EXPECT_EQ(g.find_tensor("model.layers.5.self_attn.sinks")->shape, (graph::Shape{64}));
  // An explicit layer_types wins over the alternating default; a null head_dim is hidden / heads.
  auto custom = build(R"({"model_type": "gpt_oss", "hidden_size": 64, "intermediate_size": 32,
      "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": null,
      "num_local_experts": 4, "num_experts_per_tok": 2, "vocab_size": 100, "sliding_window": 16,
      "layer_types": ["full_attention", "sliding_attention"], "attention_bias": false})");
  ASSERT_TRUE(custom.forward.ok) << custom.forward.reason;
  EXPECT_EQ(node(custom, "Attention_0")->attention->window, 0);
  EXPECT_EQ(node(custom, "Attention_1")->attention->window, 16);
  EXPECT_EQ(custom.find_tensor("layers.0.self_attn.q_proj.weight")->shape, (graph::Shape{64, 64}));
  EXPECT_EQ(custom.find_tensor("layers.0.self_attn.q_proj.bias"), nullptr);
  EXPECT_EQ(custom.find_tensor("layers.1.mlp.experts.gate_up_proj")->shape, (graph::Shape{4, 64, 64}));
  EXPECT_EQ(custom.find_tensor("layers.1.mlp.experts.down_proj")->shape, (graph::Shape{4, 32, 64}));
}

TEST(GptOssPlanner, ExpertMatricesAreMatmulsTheirBiasesAreNot) {
  auto g = build(kGptOss20B);
  const auto roles = plan::weight_roles(g, plan::Setup{});
  auto role = [&](const std::string& name) {
    const auto* t = g.find_tensor(name);
    EXPECT_NE(t, nullptr) << name;
    return roles[static_cast<std::size_t>(t - g.tensors.data())];
  };
  EXPECT_TRUE(role("model.layers.0.mlp.experts.gate_up_proj").matmul);
  EXPECT_TRUE(role("model.layers.0.mlp.experts.down_proj").matmul);
  EXPECT_FALSE(role("model.layers.0.mlp.experts.gate_up_proj_bias").matmul);
  EXPECT_FALSE(role("model.layers.0.mlp.experts.down_proj_bias").matmul);
  EXPECT_TRUE(role("model.layers.0.mlp.router.weight").lora_target);
  EXPECT_FALSE(role("model.layers.0.mlp.experts.gate_up_proj").lora_target);  // not an nn.Linear
}

TEST(GptOssPlanner, RoutedActivationsByHand) {
  // 4 tokens, hidden 8, expert width 16, 4 experts, top-2: 8 routed token-slots.
  auto g = build(R"({"model_type": "gpt_oss", "hidden_size": 8, "intermediate_size": 16, "num_hidden_layers": 1,
      "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "num_local_experts": 4,
      "num_experts_per_tok": 2, "vocab_size": 10, "max_position_embeddings": 4})");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  plan::Setup fp32;
  fp32.precision = plan::Precision::Fp32;
  plan::Runtime rt = plan::default_runtime();
  rt.allocator_block_bytes = 1;
  plan::MemoryModel m(g, fp32, rt);
  const auto* moe = node(g, "MoE_0");
  ASSERT_NE(moe, nullptr);
  const std::int64_t expected = 4 * 8 * 4          // router input
                                + 4 * 4 * 4        // router probabilities
                                + 8 * 8 + 8 * 4    // top-k indices and weights
                                + 8 * 8            // token indices each expert gathers
                                + 8 * 8 * 4        // gathered expert input (gate_up_proj's)
                                + 8 * 16 * 2 * 4   // gate_up output kept by the clamps
                                + 8 * 16 * 2 * 4   // clamped gate and sigmoid output
                                + 8 * 16 * 2 * 4   // the GLU product's operands
                                + 8 * 16 * 4       // down_proj input
                                + 8 * 8 * 4;       // expert outputs for the routing-weight product
  EXPECT_EQ(m.node_activation_bytes(moe->index, 1), expected);
}
