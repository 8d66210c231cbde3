// Falcon-H1: every ground-truth class, and attention beside a Mamba-2 mixer in every layer.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(FalconH1Graph, EveryLayerRunsAttentionAndMixerOnTheSameInput) {
  auto g = model::build_model(Config::parse(R"({"architectures": ["FalconH1ForCausalLM"], "model_type": "falcon_h1",
      "hidden_size": 256, "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 2, "vocab_size": 1000, "mamba_d_ssm": null, "mamba_n_heads": 8, "mamba_d_head": 64,
      "mamba_d_state": 16, "mamba_rms_norm": true, "projectors_bias": true})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.layers.1.mamba.norm.weight")->shape, (graph::Shape{512}));
  EXPECT_NE(g.find_tensor("model.layers.1.mamba.out_proj.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.1.mamba.in_proj.bias"), nullptr);
  EXPECT_NE(g.find_tensor("model.layers.1.self_attn.q_proj.weight"), nullptr);
  int attention = 0, mixers = 0;
  for (const auto& n : g.nodes) {
    if (n.attention) ++attention;
    if (n.ssm) ++mixers;
  }
  EXPECT_EQ(attention, 2);
  EXPECT_EQ(mixers, 2);
}
