// Bamba: every ground-truth class, and attention on the listed layers only.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(BambaGraph, AttentionOnTheListedLayersAndMamba2Elsewhere) {
  auto g = model::build_model(Config::parse(R"({"architectures": ["BambaForCausalLM"], "model_type": "bamba",
      "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 4, "num_attention_heads": 4,
      "num_key_value_heads": 2, "vocab_size": 1000, "attn_layer_indices": [1, 3], "mamba_n_heads": 8,
      "mamba_d_state": 16, "mamba_n_groups": 2})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_NE(g.find_tensor("model.layers.1.self_attn.k_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.1.mamba.A_log"), nullptr);
  // in_proj: z (512) + conv channels (512 + 2 x 2 x 16) + 8 heads.
  EXPECT_EQ(g.find_tensor("model.layers.2.mamba.in_proj.weight")->shape, (graph::Shape{512 + 576 + 8, 256}));
  EXPECT_EQ(g.find_tensor("model.layers.2.mamba.norm.weight")->shape, (graph::Shape{512}));
  EXPECT_NE(g.find_tensor("model.final_layernorm.weight"), nullptr);
}
