// dots.llm1: Qwen3's attention (per-head norms, biases on q/k/v/o) and DeepSeek-V3's feed-forward; layers slide from
// max_window_layers on; the defaults' null experts are refused with the key named.
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(Dots1Graph, QwenAttentionDeepSeekV3FeedForwardAndWindows) {
  auto g = model::build_model(Config::parse(R"({"architectures": ["Dots1ForCausalLM"], "model_type": "dots1",
      "hidden_size": 256, "intermediate_size": 512, "moe_intermediate_size": 64, "num_hidden_layers": 3,
      "num_attention_heads": 4, "num_key_value_heads": 2, "n_routed_experts": 4, "n_shared_experts": 2,
      "num_experts_per_tok": 2, "first_k_dense_replace": 1, "attention_bias": true, "sliding_window": 128,
      "max_window_layers": 2, "vocab_size": 1000})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_NE(g.find_tensor("model.layers.0.self_attn.o_proj.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.0.self_attn.q_norm.weight")->shape, (graph::Shape{64}));
  EXPECT_EQ(g.find_tensor("model.layers.0.mlp.gate_proj.weight")->shape, (graph::Shape{512, 256}));
  EXPECT_EQ(g.find_tensor("model.layers.1.mlp.shared_experts.up_proj.weight")->shape, (graph::Shape{128, 256}));
  const auto* bias = g.find_tensor("model.layers.2.mlp.gate.e_score_correction_bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->kind, graph::TensorKind::Buffer);
  std::vector<std::int64_t> windows;
  for (const auto& node : g.nodes)
    if (node.attention) windows.push_back(node.attention->window);
  EXPECT_EQ(windows, (std::vector<std::int64_t>{0, 0, 128}));
}

TEST(Dots1Graph, TheDefaultsNullExpertsAreRefusedByName) {
  try {
    model::build_model(Config::parse(R"({"model_type": "dots1", "num_hidden_layers": 2})", "config.json"));
    FAIL() << "built a mixture without experts";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("n_routed_experts"), std::string::npos) << e.what();
  }
}
