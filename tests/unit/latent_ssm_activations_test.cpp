// The activation rules of the node kinds the DeepSeek and Mamba families brought: multi-head
// latent attention and the Mamba mixer, each checked by hand on a graph small enough to add up.
#include <gtest/gtest.h>

#include "blocks/latent_attention.hpp"
#include "blocks/ssm.hpp"
#include "plan/memory.hpp"

using namespace neurarch;

namespace {

plan::Runtime exact_runtime() {
  plan::Runtime rt = plan::default_runtime();
  rt.allocator_block_bytes = 1;
  rt.fragmentation_fraction = 0;
  rt.cublas_workspace_bytes = 0;
  rt.cuda_context_bytes = 0;
  return rt;
}

plan::Setup fp32_full() {
  plan::Setup s;
  s.precision = plan::Precision::Fp32;
  return s;
}

// tokens [4] -> embedding(10 x 8) -> `middle` -> LM head 8 -> 10.
template <typename Middle>
graph::Graph around(Middle middle) {
  graph::GraphBuilder b;
  auto x = b.input({4}, "tokens");
  x = blocks::token_embedding(b, x, "Token_Embedding", graph::Scope("embed"), 10, 8);
  b.set_block(0);
  x = middle(b, x);
  b.set_block(-1);
  x = blocks::lm_head(b, x, "LM_Head", {.module = graph::Scope("lm_head"), .hidden = 8, .vocab = 10});
  return b.finish(x);
}

}  // namespace

TEST(LatentAttentionActivations, ByHand) {
  auto g = around([](graph::GraphBuilder& b, const graph::Value& x) {
    return blocks::latent_attention(b, x, "Attention_0",
                                    {.hidden = 8, .heads = 2, .q_lora_rank = 4, .kv_lora_rank = 6,
                                     .qk_nope_head_dim = 2, .qk_rope_head_dim = 2, .v_head_dim = 3,
                                     .module = graph::Scope("attn")});
  });
  ASSERT_TRUE(g.forward.ok);
  EXPECT_EQ(g.find_tensor("attn.q_b_proj.weight")->shape, (graph::Shape{8, 4}));            // 2 heads x (2 + 2)
  EXPECT_EQ(g.find_tensor("attn.kv_a_proj_with_mqa.weight")->shape, (graph::Shape{8, 8}));  // 6 + 2
  EXPECT_EQ(g.find_tensor("attn.kv_b_proj.weight")->shape, (graph::Shape{10, 6}));          // 2 x (2 + 3)
  EXPECT_EQ(g.find_tensor("attn.o_proj.weight")->shape, (graph::Shape{8, 6}));
  plan::MemoryModel m(g, fp32_full(), exact_runtime());
  // fp32, 4 tokens: every term is elements x 4 bytes.
  const std::int64_t elements = 4 * 8           // input of q_a_proj and kv_a_proj (one tensor)
                                + 4 * 4 * 2 + 4  // q latent RMSNorm: fp32 input, normalised, rsqrt
                                + 4 * 4          // q_b_proj input
                                + 4 * 6 * 2 + 4  // kv latent RMSNorm
                                + 4 * 6          // kv_b_proj input
                                + 4 * 3 * 2      // RoPE parts of 2 query heads and the shared key
                                + 4 * 2 * 11     // q and k (2 + 2 wide) and v (3 wide) per head
                                + 4 * 2 * 3      // SDPA output
                                + 2 * 4          // log-sum-exp per head and query
                                + 4 * 2 * 3;     // o_proj input
  EXPECT_EQ(m.node_activation_bytes(2, 1), elements * 4);
}

TEST(MambaMixerActivations, SelectiveScanByHand) {
  auto g = around([](graph::GraphBuilder& b, const graph::Value& x) {
    return blocks::mamba_mixer(b, x, "Mixer_0",
                               {.version = 1, .hidden = 8, .inner = 16, .state = 4, .conv_kernel = 4,
                                .time_step_rank = 2, .module = graph::Scope("mixer")});
  });
  ASSERT_TRUE(g.forward.ok);
  EXPECT_EQ(g.find_tensor("mixer.x_proj.weight")->shape, (graph::Shape{10, 16}));
  EXPECT_EQ(g.find_tensor("mixer.conv1d.weight")->shape, (graph::Shape{16, 1, 4}));
  plan::MemoryModel m(g, fp32_full(), exact_runtime());
  const std::int64_t elements = 4 * 8       // in_proj input
                                + 4 * 32    // in_proj output (x and z)
                                + 4 * 16    // conv1d output
                                + 4 * 10    // x_proj output (dt rank 2, B and C of 4)
                                + 4 * 16    // dt
                                + 4 * 8     // B and C
                                + 4 * 16    // scan output
                                + 16 * 2 * 4;  // scan state at the one chunk boundary (x and its pair)
  EXPECT_EQ(m.node_activation_bytes(2, 1), elements * 4);
  EXPECT_FALSE(m.activations().notes.empty());
}

TEST(MambaMixerActivations, Mamba2ByHand) {
  auto g = around([](graph::GraphBuilder& b, const graph::Value& x) {
    return blocks::mamba_mixer(b, x, "Mixer_0",
                               {.version = 2, .hidden = 8, .inner = 16, .state = 4, .conv_kernel = 4, .heads = 4,
                                .head_dim = 4, .groups = 2, .module = graph::Scope("mixer")});
  });
  ASSERT_TRUE(g.forward.ok);
  // in_proj: z (16) + conv channels (16 + 2 groups x 2 x 4) + one dt per head (4).
  EXPECT_EQ(g.find_tensor("mixer.in_proj.weight")->shape, (graph::Shape{52, 8}));
  plan::MemoryModel m(g, fp32_full(), exact_runtime());
  const std::int64_t elements = 4 * 8 + 4 * 52 + 4 * 16 + 4 * 2;  // input, in_proj output, scan output, rstd
  EXPECT_EQ(m.node_activation_bytes(2, 1), elements * 4);
}

TEST(MambaMixerActivations, HeadsMustFillTheMixer) {
  auto g = around([](graph::GraphBuilder& b, const graph::Value& x) {
    return blocks::mamba_mixer(b, x, "Mixer_0",
                               {.version = 2, .hidden = 8, .inner = 16, .state = 4, .heads = 3, .head_dim = 4,
                                .groups = 1, .module = graph::Scope("mixer")});
  });
  EXPECT_FALSE(g.forward.ok);
  EXPECT_NE(g.forward.reason.find("head_dim"), std::string::npos);
}
