// Zamba2: the switches the ground truth's default config does not vary (two shared blocks used in turn, the
// attention adapters, RoPE in the shared attention) and which hybrid layer's names save_pretrained keeps.
#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

using graph::Shape;

graph::Graph build(const std::string& json, std::int64_t seq = 16) {
  model::BuildOptions o;
  o.seq = seq;
  return model::build_model(Config::parse(json, "config.json"), o).graph;
}

// 8 layers, hybrid at 2, 4, 5 and 7; hidden 16, 4 heads (head_dim 2 x 16 / 4 = 8), 2 Mamba heads.
std::string config(const std::string& cls, const std::string& extra = "") {
  return R"({"architectures": [")" + cls + R"("], "model_type": "zamba2", "hidden_size": 16,
      "num_attention_heads": 4, "n_mamba_heads": 2, "mamba_d_state": 4, "adapter_rank": 3, "vocab_size": 50,
      "layers_block_type": ["mamba", "mamba", "hybrid", "mamba", "hybrid", "hybrid", "mamba", "hybrid"])" +
         extra + "}";
}

TEST(Zamba2Graph, OneSharedBlockAndAnAdapterPerUse) {
  const auto g = build(config("Zamba2Model"));
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // The base class keeps the main weights under the last hybrid layer in string order ("7" > "5" > ...), the
  // adapters under the first (layer 2); every use's adapter is its own pair of matrices.
  EXPECT_EQ(g.find_tensor("layers.7.shared_transformer.self_attn.q_proj.weight")->shape, (Shape{32, 32}));
  EXPECT_FALSE(g.find_tensor("layers.2.shared_transformer.self_attn.q_proj.weight")->saved());
  EXPECT_EQ(g.find_tensor("layers.7.shared_transformer.feed_forward.gate_up_proj.weight")->shape,
            (Shape{2 * 64, 16}));
  for (int use = 0; use < 4; ++use) {
    const std::string name = "layers.2.shared_transformer.feed_forward.gate_up_proj_adapter_list." +
                             std::to_string(use) + ".1.weight";
    ASSERT_NE(g.find_tensor(name), nullptr) << name;
    EXPECT_TRUE(g.find_tensor(name)->saved()) << name;
    EXPECT_EQ(g.find_tensor(name)->shape, (Shape{2 * 64, 3}));
  }
  EXPECT_EQ(g.find_tensor("layers.2.shared_transformer.feed_forward.gate_up_proj_adapter_list.4.0.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("layers.4.mamba_decoder.mamba.in_proj.weight")->shape, (Shape{2 * 32 + 2 * 4 + 2, 16}));
  EXPECT_EQ(g.find_tensor("layers.3.mamba.conv1d.bias")->shape, (Shape{32 + 2 * 4}));
}

TEST(Zamba2Graph, HeadClassesKeepTheFirstNameInStringOrder) {
  const auto g = build(config("Zamba2ForCausalLM"));
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_TRUE(g.find_tensor("model.layers.2.shared_transformer.self_attn.q_proj.weight")->saved());
  EXPECT_FALSE(g.find_tensor("model.layers.7.shared_transformer.self_attn.q_proj.weight")->saved());
  EXPECT_FALSE(g.find_tensor("lm_head.weight")->saved());
}

TEST(Zamba2Graph, TwoMemoryBlocksAlternate) {
  const auto g = build(config("Zamba2Model", R"(, "num_mem_blocks": 2, "use_shared_attention_adapter": true,
      "use_mem_rope": true)"));
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Uses 0 and 2 (layers 2 and 5) run block 0, uses 1 and 3 (layers 4 and 7) block 1; each block holds the
  // adapters of its own uses only. Block 0's main weights stay under layer 5, block 1's under layer 7.
  EXPECT_TRUE(g.find_tensor("layers.5.shared_transformer.self_attn.o_proj.weight")->saved());
  EXPECT_TRUE(g.find_tensor("layers.7.shared_transformer.self_attn.o_proj.weight")->saved());
  EXPECT_FALSE(g.find_tensor("layers.2.shared_transformer.self_attn.o_proj.weight")->saved());
  EXPECT_TRUE(g.find_tensor("layers.2.shared_transformer.self_attn.linear_q_adapter_list.2.0.weight")->saved());
  EXPECT_EQ(g.find_tensor("layers.2.shared_transformer.self_attn.linear_q_adapter_list.1.0.weight"), nullptr);
  EXPECT_TRUE(g.find_tensor("layers.4.shared_transformer.self_attn.linear_k_adapter_list.3.1.weight")->saved());
  EXPECT_EQ(g.find_tensor("layers.4.shared_transformer.self_attn.linear_v_adapter_list.3.1.weight")->shape,
            (Shape{32, 3}));
  int rotary = 0;
  for (const auto& n : g.nodes) rotary += n.attention && n.attention->rotary ? 1 : 0;
  EXPECT_EQ(rotary, 4);
}

TEST(Zamba2Graph, LegacyAndCurrentLayerNames) {
  const auto g = build(R"({"architectures": ["Zamba2Model"], "model_type": "zamba2", "hidden_size": 16,
      "num_attention_heads": 4, "n_mamba_heads": 2, "mamba_d_state": 4, "vocab_size": 50,
      "layers_block_type": ["linear_attention", "hybrid", "transformer"]})");
  EXPECT_FALSE(g.forward.ok);
  EXPECT_NE(g.forward.reason.find("transformer"), std::string::npos) << g.forward.reason;
}

}  // namespace
}  // namespace neurarch
