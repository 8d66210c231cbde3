// Zamba: every ground-truth class, and the one shared transformer block reused at every hybrid layer.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(ZambaGraph, SharedBlockIsCountedOnceUnderTheLastHybridLayer) {
  auto g = model::build_model(Config::parse(R"({"architectures": ["ZambaForCausalLM"], "model_type": "zamba",
      "hidden_size": 64, "intermediate_size": 256, "num_hidden_layers": 10, "num_attention_heads": 4,
      "vocab_size": 1000, "attn_layer_period": 3, "attn_layer_offset": 1})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Hybrid layers: 2, then 3 + 1 = 4 and 7.
  const auto* owner = g.find_tensor("model.layers.7.shared_transf.self_attn.q_proj.weight");
  ASSERT_NE(owner, nullptr);
  EXPECT_TRUE(owner->saved());
  EXPECT_EQ(owner->shape, (graph::Shape{128, 128}));
  for (const char* alias : {"model.layers.2.shared_transf.self_attn.q_proj.weight",
                            "model.layers.4.shared_transf.feed_forward.up_proj.weight"}) {
    const auto* t = g.find_tensor(alias);
    ASSERT_NE(t, nullptr) << alias;
    EXPECT_FALSE(t->saved()) << alias;
  }
  EXPECT_NE(g.find_tensor("model.layers.4.linear.weight"), nullptr);
  EXPECT_NE(g.find_tensor("model.layers.4.mamba_decoder.mamba.x_proj_weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.3.linear.weight"), nullptr);
  int attention = 0;
  for (const auto& n : g.nodes)
    if (n.attention) ++attention;
  EXPECT_EQ(attention, 3);
}
