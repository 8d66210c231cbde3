// Qwen3-Next and Qwen3.5: the hybrid layer pattern, the gated attention's doubled q_proj, and what the planner
// reads from a Gated DeltaNet node (saved tensors linear in the sequence, the chunked recurrence's FLOPs).
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

// 6 layers, full attention every third: layers 2 and 5 attend, the others are Gated DeltaNet.
std::string next_config() {
  return R"({"architectures": ["Qwen3NextForCausalLM"], "model_type": "qwen3_next", "hidden_size": 256,
      "intermediate_size": 512, "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 2,
      "head_dim": 64, "full_attention_interval": 3, "linear_num_key_heads": 2, "linear_num_value_heads": 4,
      "linear_key_head_dim": 32, "linear_value_head_dim": 48, "linear_conv_kernel_dim": 4, "num_experts": 4,
      "num_experts_per_tok": 2, "moe_intermediate_size": 64, "shared_expert_intermediate_size": 96,
      "decoder_sparse_step": 2, "vocab_size": 1000})";
}

graph::Graph build(const std::string& json, std::int64_t seq) {
  model::BuildOptions o;
  o.seq = seq;
  return model::build_model(Config::parse(json, "config.json"), o).graph;
}

TEST(Qwen3NextGraph, LayerPatternGatedAttentionAndMixerTensors) {
  const auto g = build(next_config(), 64);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  int attention = 0, mixers = 0;
  for (const auto& n : g.nodes) {
    if (n.attention) {
      ++attention;
      EXPECT_TRUE(n.attention->output_gate) << n.name;
    }
    if (n.type == graph::NodeType::GatedDeltaNet) {
      ++mixers;
      ASSERT_TRUE(n.linear_attention);
      EXPECT_EQ(n.linear_attention->value_heads, 4);
      EXPECT_EQ(n.out, (Shape{64, 256}));
    }
  }
  EXPECT_EQ(attention, 2);
  EXPECT_EQ(mixers, 4);
  EXPECT_NE(g.find_tensor("model.layers.2.self_attn.q_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.2.self_attn.q_proj.weight")->shape, (Shape{2 * 4 * 64, 256}));
  EXPECT_EQ(g.find_tensor("model.layers.2.linear_attn.in_proj_qkvz.weight"), nullptr);
  // key_dim 64, value_dim 192: q, k, v and z; b and a per value head; the convolution over q, k and v.
  EXPECT_EQ(g.find_tensor("model.layers.0.linear_attn.in_proj_qkvz.weight")->shape, (Shape{2 * 64 + 2 * 192, 256}));
  EXPECT_EQ(g.find_tensor("model.layers.0.linear_attn.in_proj_ba.weight")->shape, (Shape{8, 256}));
  EXPECT_EQ(g.find_tensor("model.layers.0.linear_attn.conv1d.weight")->shape, (Shape{2 * 64 + 192, 1, 4}));
  EXPECT_EQ(g.find_tensor("model.layers.0.linear_attn.norm.weight")->shape, (Shape{48}));
  EXPECT_EQ(g.find_tensor("model.layers.0.linear_attn.out_proj.weight")->shape, (Shape{256, 192}));
  // decoder_sparse_step 2: layers 1, 3 and 5 route to experts, the others keep a dense MLP.
  EXPECT_NE(g.find_tensor("model.layers.1.mlp.shared_expert_gate.weight"), nullptr);
  EXPECT_NE(g.find_tensor("model.layers.0.mlp.gate_proj.weight"), nullptr);
}

TEST(Qwen3_5Graph, SplitProjectionsAndLayerTypesWin) {
  const auto g = build(R"({"architectures": ["Qwen3_5ForCausalLM"], "model_type": "qwen3_5_text", "hidden_size": 128,
      "intermediate_size": 256, "num_hidden_layers": 3, "num_attention_heads": 2, "num_key_value_heads": 1,
      "head_dim": 64, "full_attention_interval": 2, "layer_types": ["full_attention", "linear_attention",
      "linear_attention"], "linear_num_key_heads": 2, "linear_num_value_heads": 2, "linear_key_head_dim": 16,
      "linear_value_head_dim": 16, "vocab_size": 500})",
                       32);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_NE(g.find_tensor("model.layers.0.self_attn.q_proj.weight"), nullptr);
  for (const char* name : {"in_proj_qkv", "in_proj_z", "in_proj_b", "in_proj_a"})
    EXPECT_NE(g.find_tensor(std::string("model.layers.2.linear_attn.") + name + ".weight"), nullptr) << name;
  EXPECT_EQ(g.find_tensor("model.layers.1.linear_attn.in_proj_qkv.weight")->shape, (Shape{96, 128}));
  EXPECT_EQ(g.find_tensor("model.layers.1.mlp.up_proj.weight")->shape, (Shape{256, 128}));
}

TEST(Qwen3NextGraph, UnevenLinearHeadsFail) {
  const auto g = build(R"({"model_type": "qwen3_next", "hidden_size": 128, "num_hidden_layers": 2,
      "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 64, "linear_num_key_heads": 3,
      "linear_num_value_heads": 4, "num_experts": 2, "num_experts_per_tok": 1, "vocab_size": 100})",
                       16);
  EXPECT_FALSE(g.forward.ok);
  EXPECT_NE(g.forward.reason.find("linear key heads"), std::string::npos) << g.forward.reason;
}

std::int64_t mixer_bytes(const graph::Graph& g, const plan::Setup& s) {
  const auto model = plan::saved_activations(g, s, plan::weight_roles(g, s));
  for (const auto& n : g.nodes)
    if (n.type == graph::NodeType::GatedDeltaNet) return model.nodes.at(static_cast<std::size_t>(n.index)).bytes_per_sample();
  ADD_FAILURE() << "no Gated DeltaNet node";
  return 0;
}

TEST(GatedDeltaNetPlan, SavedTensorsAndFlopsGrowLinearlyWithTheSequence) {
  plan::Setup s;  // full fine-tune, bf16 autocast
  const auto short_graph = build(next_config(), 128);
  const auto long_graph = build(next_config(), 512);
  const std::int64_t short_bytes = mixer_bytes(short_graph, s), long_bytes = mixer_bytes(long_graph, s);
  EXPECT_GT(short_bytes, 0);
  EXPECT_EQ(long_bytes, 4 * short_bytes);  // no [seq, seq] term: the state is per sequence, the chunks per token

  // By hand at 128 tokens: hidden 256, key heads 2 x 32 (key_dim 64), value heads 4 x 48 (value_dim 192).
  const std::int64_t t = 128, kd = 64, vd = 192, vh = 4;
  const std::int64_t expected = 2 * t * 256 * 2        // input projections' input (a bf16 cast each: fp32 norm output)
                                + t * (2 * kd + vd) * 2  // conv input
                                + t * vh * 2            // beta
                                + 2 * t * vh * 4        // softplus input and output
                                + 2 * t * vh * 32 * 2   // L2-normed q and k at value heads
                                + 2 * t * vh * 4        // their rstd
                                + t * vd * 2            // v
                                + t * vh * 4            // cumulative decay
                                + t * vh * 64 * 2       // WY matrix A
                                + t * vd * 4 + t * vh * 4 + t * vd * 2 + t * vd * 4 + 2 * t * vd * 4  // gated norm
                                + t * vd * 2;           // out_proj input
  EXPECT_EQ(short_bytes, expected);

  const auto costs = plan::node_costs(short_graph, s);
  double mixer_flops = 0, projection_flops = 0;
  for (const auto& n : short_graph.nodes)
    if (n.type == graph::NodeType::GatedDeltaNet) {
      mixer_flops = costs.at(static_cast<std::size_t>(n.index)).flops_forward;
      for (int ti : n.tensors) {
        const auto& spec = short_graph.tensors.at(static_cast<std::size_t>(ti));
        // Every projection and the depthwise convolution: 2 x tokens x weights.
        if (spec.shape.size() >= 2) projection_flops += 2.0 * t * static_cast<double>(spec.scalars());
      }
      break;
    }
  // The recurrence per token and value head: 2 C dk + 4 C (dk + dv) + 6 dk dv + C^2 / 3 with C = 64.
  const double core = t * vh * (2.0 * 64 * 32 + 4.0 * 64 * (32 + 48) + 6.0 * 32 * 48 + 64.0 * 64 / 3.0);
  EXPECT_NEAR(mixer_flops, projection_flops + core, 1e-9 * mixer_flops);
}

}  // namespace
}  // namespace neurarch
