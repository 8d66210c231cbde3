// Hunyuan MoE: Hunyuan dense's attention with a routed mixture (router gate.wg) and a shared MLP of the same width.
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(HunYuanMoEV1Graph, RouterWgExpertsAndSharedMlpOnEveryLayer) {
  auto g = model::build_model(Config::parse(R"({"architectures": ["HunYuanMoEV1ForCausalLM"],
      "model_type": "hunyuan_v1_moe", "hidden_size": 256, "intermediate_size": 96, "num_hidden_layers": 2,
      "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 64, "num_experts": 6, "moe_topk": 2,
      "vocab_size": 1000})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.layers.1.mlp.gate.wg.weight")->shape, (graph::Shape{6, 256}));
  EXPECT_EQ(g.find_tensor("model.layers.1.mlp.experts.5.down_proj.weight")->shape, (graph::Shape{256, 96}));
  EXPECT_EQ(g.find_tensor("model.layers.1.mlp.shared_mlp.gate_proj.weight")->shape, (graph::Shape{96, 256}));
  EXPECT_EQ(g.find_tensor("model.layers.0.self_attn.query_layernorm.weight")->shape, (graph::Shape{64}));
  int moe = 0;
  for (const auto& node : g.nodes)
    if (node.moe) {
      ++moe;
      EXPECT_EQ(node.moe->top_k, 2);
      EXPECT_EQ(node.moe->shared_intermediate, 96);
    }
  EXPECT_EQ(moe, 2);
}

TEST(HunYuanMoEV1Graph, MoeTopkMayBeOnePerLayer) {
  auto g = model::build_model(Config::parse(R"({"model_type": "hunyuan_v1_moe", "hidden_size": 128,
      "intermediate_size": 64, "num_hidden_layers": 3, "num_attention_heads": 2, "head_dim": 64, "num_experts": 4,
      "moe_topk": [1, 3, 2], "vocab_size": 100})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  std::vector<std::int64_t> top_k;
  for (const auto& node : g.nodes)
    if (node.moe) top_k.push_back(node.moe->top_k);
  EXPECT_EQ(top_k, (std::vector<std::int64_t>{1, 3, 2}));
  EXPECT_THROW(model::build_model(Config::parse(R"({"model_type": "hunyuan_v1_moe", "num_hidden_layers": 3,
      "head_dim": 128, "num_experts": 4, "moe_topk": [1, 2]})",
                                                "config.json")),
               Error);
}
