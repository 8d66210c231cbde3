// The recurrent mixers (RecurrentGemma's RG-LRU, RWKV's WKV, xLSTM's mLSTM, MiniMax's lightning attention): the
// layer patterns and config switches the ground truth's default configs do not vary, and what the planner reads
// from a RecurrentMixer node (saved tensors linear in the sequence, the scan's FLOPs).
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/activations.hpp"
#include "plan/cost.hpp"
#include "plan/weights.hpp"

namespace neurarch {
namespace {

using graph::Shape;

graph::Graph build(const std::string& json, std::int64_t seq) {
  model::BuildOptions o;
  o.seq = seq;
  return model::build_model(Config::parse(json, "config.json"), o).graph;
}

// 4 layers alternating recurrent and attention blocks; the head_dim key is ignored (the config class overwrites it).
std::string griffin_config(const std::string& extra = "") {
  return R"({"architectures": ["RecurrentGemmaForCausalLM"], "model_type": "recurrent_gemma", "hidden_size": 64,
      "intermediate_size": 96, "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 1,
      "head_dim": 999, "lru_width": 32, "conv1d_width": 3, "attention_window_size": 16,
      "block_types": ["recurrent", "attention"], "vocab_size": 100)" +
         extra + "}";
}

int count(const graph::Graph& g, graph::NodeType t) {
  int n = 0;
  for (const auto& node : g.nodes) n += node.type == t ? 1 : 0;
  return n;
}

TEST(RecurrentGemmaGraph, BlockTypesRepeatOverTheLayers) {
  const auto g = build(griffin_config(), 32);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(count(g, graph::NodeType::RecurrentMixer), 2);
  for (const auto& n : g.nodes) {
    if (n.attention) {
      EXPECT_EQ(n.attention->window, 16) << n.name;
    }
    if (n.recurrent) {
      EXPECT_EQ(n.recurrent->cell, graph::RecurrentCell::RgLru);
      EXPECT_EQ(n.recurrent->width, 32);
      EXPECT_EQ(n.recurrent->conv_kernel, 3);
      EXPECT_EQ(n.out, (Shape{32, 64}));
    }
  }
  EXPECT_EQ(g.find_tensor("model.layers.2.temporal_block.rg_lru.input_gate_weight")->shape, (Shape{4, 8, 8}));
  EXPECT_EQ(g.find_tensor("model.layers.2.temporal_block.conv_1d.weight")->shape, (Shape{32, 1, 3}));
  EXPECT_EQ(g.find_tensor("model.layers.2.temporal_block.linear_out.weight")->shape, (Shape{64, 32}));
  // head_dim = hidden / heads = 16; one KV head; o_proj always has a bias, q/k/v only with attention_bias.
  EXPECT_EQ(g.find_tensor("model.layers.3.temporal_block.k_proj.weight")->shape, (Shape{16, 64}));
  EXPECT_NE(g.find_tensor("model.layers.3.temporal_block.o_proj.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.3.temporal_block.q_proj.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.3.mlp_block.down_proj.weight")->shape, (Shape{64, 48}));
  EXPECT_FALSE(g.find_tensor("lm_head.weight")->saved());  // tied by default
}

TEST(RecurrentGemmaGraph, GateBlocksMustFillTheWidth) {
  const auto g = build(griffin_config(R"(, "lru_width": 30)"), 16);
  EXPECT_FALSE(g.forward.ok);
  EXPECT_NE(g.forward.reason.find("gate blocks"), std::string::npos) << g.forward.reason;
}

std::string rwkv_config(const std::string& extra = "") {
  return R"({"architectures": ["RwkvForCausalLM"], "model_type": "rwkv", "hidden_size": 32, "num_hidden_layers": 2,
      "attention_hidden_size": 48, "intermediate_size": 80, "context_length": 64, "vocab_size": 100)" +
         extra + "}";
}

TEST(RwkvGraph, TimeMixChannelMixAndTheFirstBlocksNorm) {
  const auto g = build(rwkv_config(), 16);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_NE(g.find_tensor("rwkv.blocks.0.pre_ln.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("rwkv.blocks.1.pre_ln.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("rwkv.blocks.1.attention.key.weight")->shape, (Shape{48, 32}));
  EXPECT_EQ(g.find_tensor("rwkv.blocks.1.attention.output.weight")->shape, (Shape{32, 48}));
  EXPECT_EQ(g.find_tensor("rwkv.blocks.1.attention.time_decay")->shape, (Shape{48}));
  EXPECT_EQ(g.find_tensor("rwkv.blocks.1.feed_forward.receptance.weight")->shape, (Shape{32, 32}));
  EXPECT_EQ(g.find_tensor("rwkv.blocks.1.feed_forward.value.weight")->shape, (Shape{32, 80}));
  EXPECT_TRUE(g.find_tensor("head.weight")->saved());  // not tied unless tie_word_embeddings
  int channel_mixes = 0;
  for (const auto& n : g.nodes)
    if (n.feed_forward && n.feed_forward->token_shift && n.feed_forward->output_gate) ++channel_mixes;
  EXPECT_EQ(channel_mixes, 2);
  const auto tied = build(rwkv_config(R"(, "tie_word_embeddings": true)"), 16);
  EXPECT_FALSE(tied.find_tensor("head.weight")->saved());
  EXPECT_FALSE(build(rwkv_config(), 128).notes.empty());  // past context_length: the CUDA kernel refuses it
}

std::string xlstm_config(const std::string& extra = "") {
  return R"({"architectures": ["xLSTMForCausalLM"], "model_type": "xlstm", "hidden_size": 64, "num_blocks": 2,
      "num_heads": 4, "qk_dim_factor": 0.5, "v_dim_factor": 1.0, "ffn_proj_factor": 1.3,
      "ffn_round_up_to_multiple_of": 32, "vocab_size": 100)" +
         extra + "}";
}

TEST(XlstmGraph, SingleAndFusedWeightsAndBiases) {
  const auto single = build(xlstm_config(), 64);
  ASSERT_TRUE(single.forward.ok) << single.forward.reason;
  EXPECT_EQ(single.find_tensor("backbone.blocks.1.mlstm_layer.q.weight")->shape, (Shape{32, 64}));
  EXPECT_EQ(single.find_tensor("backbone.blocks.1.mlstm_layer.igate_preact.bias")->shape, (Shape{4}));
  EXPECT_EQ(single.find_tensor("backbone.blocks.1.mlstm_layer.q.bias"), nullptr);
  // 64 x 1.3 = 83.2, rounded up to a multiple of 32.
  EXPECT_EQ(single.find_tensor("backbone.blocks.1.ffn.proj_up.weight")->shape, (Shape{96, 64}));

  const auto fused = build(xlstm_config(R"(, "weight_mode": "fused", "use_bias": true)"), 64);
  ASSERT_TRUE(fused.forward.ok) << fused.forward.reason;
  EXPECT_EQ(fused.find_tensor("backbone.blocks.0.mlstm_layer.qkv_opreact.weight")->shape, (Shape{2 * 32 + 2 * 64, 64}));
  EXPECT_EQ(fused.find_tensor("backbone.blocks.0.mlstm_layer.ifgate_preact.weight")->shape, (Shape{8, 64}));
  EXPECT_EQ(fused.find_tensor("backbone.blocks.0.ffn.proj_up_gate_z.weight")->shape, (Shape{192, 64}));
  EXPECT_NE(fused.find_tensor("backbone.blocks.0.norm_mlstm.bias"), nullptr);
  EXPECT_NE(fused.find_tensor("backbone.blocks.0.mlstm_layer.multihead_norm.bias"), nullptr);
  EXPECT_EQ(fused.find_tensor("backbone.out_norm.bias"), nullptr);
}

std::string minimax_config() {
  return R"({"architectures": ["MiniMaxForCausalLM"], "model_type": "minimax", "hidden_size": 64,
      "intermediate_size": 96, "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2,
      "num_local_experts": 4, "num_experts_per_tok": 2, "block_size": 32, "vocab_size": 100,
      "layer_types": ["linear_attention", "full_attention", "linear_attention"]})";
}

TEST(MiniMaxGraph, LayerTypesAndDecayBuffers) {
  const auto g = build(minimax_config(), 64);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(count(g, graph::NodeType::RecurrentMixer), 2);
  EXPECT_NE(g.find_tensor("model.layers.1.self_attn.q_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.2.self_attn.qkv_proj.weight")->shape, (Shape{3 * 64, 64}));
  const auto* decay = g.find_tensor("model.layers.0.self_attn.diagonal_decay");
  ASSERT_NE(decay, nullptr);
  EXPECT_EQ(decay->kind, graph::TensorKind::Buffer);
  EXPECT_EQ(decay->shape, (Shape{1, 4, 32, 32}));
  EXPECT_NE(g.find_tensor("model.layers.0.block_sparse_moe.experts.3.w2.weight"), nullptr);
}

std::int64_t mixer_bytes(const graph::Graph& g, const plan::Setup& s) {
  const auto model = plan::saved_activations(g, s, plan::weight_roles(g, s));
  std::int64_t total = 0;
  for (const auto& n : g.nodes)
    if (n.type == graph::NodeType::RecurrentMixer) total += model.nodes.at(static_cast<std::size_t>(n.index)).bytes_per_sample();
  return total;
}

TEST(RecurrentMixerPlan, SavedTensorsGrowLinearlyWithTheSequence) {
  plan::Setup s;  // full fine-tune, bf16 autocast
  for (const auto& json : {griffin_config(), rwkv_config(), xlstm_config(), minimax_config()}) {
    SCOPED_TRACE(json);
    const std::int64_t short_bytes = mixer_bytes(build(json, 128), s), long_bytes = mixer_bytes(build(json, 512), s);
    EXPECT_GT(short_bytes, 0);
    EXPECT_EQ(long_bytes, 4 * short_bytes);  // no [seq, seq] term: chunks are per token, the state per chunk
  }
}

TEST(RecurrentMixerPlan, RgLruByHand) {
  plan::Setup s;  // full fine-tune, bf16 autocast
  const std::int64_t t = 128, w = 32;
  const auto g = build(griffin_config(), t);
  const auto model = plan::saved_activations(g, s, plan::weight_roles(g, s));
  const auto costs = plan::node_costs(g, s);
  for (const auto& n : g.nodes) {
    if (n.type != graph::NodeType::RecurrentMixer) continue;
    const std::int64_t expected = 2 * t * 64 * 2  // linear_x and linear_y input (a bf16 cast each: fp32 norm output)
                                  + t * w * 2      // gelu input
                                  + t * w * 2      // y branch
                                  + t * w * 2      // conv1d input
                                  + t * w * 2      // conv output (the gates' input)
                                  + 2 * t * w * 2  // the two sigmoid outputs
                                  + 2 * t * w * 4  // a and a^2 (fp32: promoted by recurrent_param)
                                  + t * w * 4      // sqrt input
                                  + t * w * 2      // -8 x recurrent gate
                                  + 2 * t * w * 2  // gated input and normaliser
                                  + 2 * t * w * 4  // the scan's decay and previous states
                                  + t * w * 2      // scan output
                                  + t * w * 2;     // linear_out input
    EXPECT_EQ(model.nodes.at(static_cast<std::size_t>(n.index)).bytes_per_sample(), expected);
    double projections = 0;
    for (int ti : n.tensors) {
      const auto& spec = g.tensors.at(static_cast<std::size_t>(ti));
      // linear_x/y/out, the depthwise convolution and the per-head gate blocks: 2 x tokens x weights.
      if (spec.shape.size() >= 2 && spec.name.ends_with("weight"))
        projections += 2.0 * t * static_cast<double>(spec.scalars());
    }
    const double flops = costs.at(static_cast<std::size_t>(n.index)).flops_forward;
    EXPECT_NEAR(flops, projections + 20.0 * t * w, 1e-9 * flops);
    return;
  }
  ADD_FAILURE() << "no RG-LRU node";
}

}  // namespace
}  // namespace neurarch
