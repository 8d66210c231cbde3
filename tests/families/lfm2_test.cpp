// LFM2: every ground-truth class (the class defaults attend in every layer), and LFM2-1.2B's hybrid stack
// of short-convolution and attention layers with its published size.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/memory.hpp"

using namespace neurarch;

TEST(Lfm2Graph, HybridConvAndAttentionLayersOfLfm2_1_2B) {
  // LiquidAI/LFM2-1.2B's config.json (architecture keys, original spellings): 1.17B parameters.
  auto g = model::build_model(Config::parse(R"({"architectures": ["Lfm2ForCausalLM"], "model_type": "lfm2",
      "block_auto_adjust_ff_dim": true, "block_dim": 2048, "block_ff_dim": 12288, "block_ffn_dim_multiplier": 1.0,
      "block_multiple_of": 256, "conv_L_cache": 3, "conv_bias": false, "hidden_size": 2048,
      "max_position_embeddings": 128000, "num_attention_heads": 32, "num_hidden_layers": 16,
      "num_key_value_heads": 8, "vocab_size": 65536, "tie_embedding": true,
      "layer_types": ["conv", "conv", "full_attention", "conv", "conv", "full_attention", "conv", "conv",
                      "full_attention", "conv", "full_attention", "conv", "full_attention", "conv",
                      "full_attention", "conv"]})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.saved_scalars(), 1'170'340'608);
  EXPECT_EQ(g.find_tensor("model.layers.0.conv.in_proj.weight")->shape, (graph::Shape{6144, 2048}));
  EXPECT_EQ(g.find_tensor("model.layers.0.conv.conv.weight")->shape, (graph::Shape{2048, 1, 3}));
  EXPECT_EQ(g.find_tensor("model.layers.0.self_attn.q_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.2.self_attn.q_layernorm.weight")->shape, (graph::Shape{64}));
  EXPECT_EQ(g.find_tensor("model.layers.2.feed_forward.w1.weight")->shape, (graph::Shape{8192, 2048}));
  EXPECT_EQ(g.find_tensor("lm_head.weight")->tied_to, "model.embed_tokens.weight");
  const graph::Node* conv = nullptr;
  for (const auto& n : g.nodes)
    if (n.name == "ShortConv_0") conv = &n;
  ASSERT_TRUE(conv && conv->conv);
  EXPECT_EQ(conv->out, (graph::Shape{2048, 2048}));  // causal: as long as the input
  EXPECT_EQ(conv->conv->groups, 2048);

  // Lfm2ShortConv: B * x and C * conv_out keep in_proj's whole output (B, C, x are views of it) and the
  // convolution's output before it is cut to the sequence (2048 + conv_L_cache - 1 rows); bf16 under autocast.
  plan::MemoryModel memory(g, plan::Setup{}, plan::default_runtime());
  const auto& saved = memory.activations().nodes.at(static_cast<std::size_t>(conv->index)).saved;
  std::int64_t input = 0, operands = 0, uncut = 0;
  for (const auto& t : saved) {
    if (t.what.starts_with("convolution input")) input = t.bytes(1);
    if (t.what.starts_with("gate operands")) operands = t.bytes(1);
    if (t.what.starts_with("convolution output before the cut")) uncut = t.bytes(1);
  }
  EXPECT_EQ(input, 2048 * 2048 * 2);
  EXPECT_EQ(operands, 2048 * 6144 * 2);
  EXPECT_EQ(uncut, (2048 + 2) * 2048 * 2);
}
