// Doge (models/doge/modeling_doge.py + configuration_doge.py, transformers 4.57.6): Llama's stack where each
// residual is scaled by a learned vector (input_residual, post_attention_residual: [hidden], declared here on
// the sublayer they scale) and the attention adds a dynamic mask computed from the values: dt_proj (kv heads
// x head_dim -> kv heads, attention_bias) and A ([kv heads]); per-head RMSNorms on q and k. With is_moe the
// MLP becomes the cross-domain MoE: the dense gated MLP stays as a shared expert, and a product-key router
// (router_gate: hidden -> 2 x floor(sqrt(num_experts))) picks num_experts_per_tok single-neuron experts whose
// input and output vectors are rows of down_embed / up_embed ([num_experts, hidden]).
#include <cmath>

#include <fmt/format.h>

#include "families/llama_common.hpp"

namespace neurarch::families {
namespace doge_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value cross_domain_moe(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& m, const decoder::DecoderSpec& s,
                       std::int64_t experts, std::int64_t top_k, bool mlp_bias) {
  auto out = b.node(NodeType::MixtureOfExperts, fmt::format("MoE_{}", i), x.shape, {x}, m);
  b.at(out).feed_forward = graph::FeedForwardAttrs{s.hidden, s.intermediate, s.activation, true};
  const auto keys = static_cast<std::int64_t>(std::floor(std::sqrt(static_cast<double>(experts))));
  linear_tensors(b, out, m / "router_gate", s.hidden, 2 * keys, false);
  const auto first_routed = b.at(out).tensors.size();
  b.parameter(out, (m / "down_embed")("weight"), {experts, s.hidden},
              graph::TensorRole::Linear, graph::Operand::Routed);
  b.parameter(out, (m / "up_embed")("weight"), {experts, s.hidden}, graph::TensorRole::Linear,
              graph::Operand::RoutedInner);
  const auto& owned = b.at(out).tensors;
  graph::MoEAttrs moe{.experts = experts, .top_k = top_k, .intermediate = 1, .shared_intermediate = s.intermediate,
                      .activation = s.activation, .gated = false, .expert_inputs = 1};
  moe.routed_tensors.assign(owned.begin() + static_cast<std::ptrdiff_t>(first_routed), owned.end());
  linear_tensors(b, out, m / "gate_proj", s.hidden, s.intermediate, mlp_bias);
  linear_tensors(b, out, m / "up_proj", s.hidden, s.intermediate, mlp_bias);
  linear_tensors(b, out, m / "down_proj", s.intermediate, s.hidden, mlp_bias, graph::Operand::Inner);
  b.at(out).moe = std::move(moe);
  if (top_k <= 0 || top_k > keys * keys)
    b.fail(out, fmt::format("routes each token to {} of the {} product-key candidates: top-k must be between 1 and "
                            "that count (torch.topk fails otherwise)",
                            top_k, keys * keys));
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 32768, .hidden = 1024, .intermediate = 2048, .layers = 32, .heads = 8, .kv_heads = 8,
          .positions = 2048, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  const bool mlp_bias = c.flag({"mlp_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.mlp_bias = mlp_bias;
  s.down_bias = mlp_bias;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.residual_dropout = c.number({"hidden_dropout"}, 0.0);
  s.window = decoder::window_or_none(c, "sliding_window", 0);

  s.attention_override = [s, bias](GraphBuilder& gb, const Value& x, std::int64_t i, const Scope& layer) {
    const Scope attn = layer / "self_attn";
    auto h = attention(gb, x, BlockNames{i}.attention(),
                       {.hidden = s.hidden, .heads = s.heads, .kv_heads = s.kv_heads, .head_dim = s.head_dim,
                        .causal = true, .window = s.window, .module = attn, .q = attn / "q_proj",
                        .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "o_proj", .qkv_bias = bias,
                        .o_bias = bias, .require_divisible = false, .dropout = s.attention_dropout,
                        .output_dropout = s.residual_dropout, .rotary = true});
    gb.parameter(h, attn("A"), {s.kv_heads}, graph::TensorRole::Other);
    // The dynamic mask projects the value states, inside the op.
    linear_tensors(gb, h, attn / "dt_proj", s.kv_heads * s.head_dim, s.kv_heads, bias, graph::Operand::Internal);
    gb.parameter(h, (attn / "q_norm")("weight"), {s.head_dim}, graph::TensorRole::Norm);
    gb.parameter(h, (attn / "k_norm")("weight"), {s.head_dim}, graph::TensorRole::Norm);
    gb.parameter(h, layer("input_residual"), {s.hidden}, graph::TensorRole::Other);
    return h;
  };

  const bool moe = c.flag({"is_moe"}, false);
  const std::int64_t experts = c.dim({"num_experts"}, 16384);
  const std::int64_t top_k = c.dim({"num_experts_per_tok"}, 64);
  s.mlp_override = [s, moe, experts, top_k, mlp_bias](GraphBuilder& gb, const Value& x, std::int64_t i,
                                                      const Scope& layer) {
    const Scope m = layer / "mlp";
    Value h;
    if (moe) {
      h = cross_domain_moe(gb, x, i, m, s, experts, top_k, mlp_bias);
      gb.at(h).dropout = s.residual_dropout;
    } else {
      h = feed_forward(gb, x, BlockNames{i}.ffn(),
                       {.hidden = s.hidden, .intermediate = s.intermediate, .activation = s.activation,
                        .gated = true, .module = m, .up = m / "up_proj", .down = m / "down_proj",
                        .gate = m / "gate_proj", .bias = mlp_bias, .down_bias = mlp_bias,
                        .output_dropout = s.residual_dropout});
    }
    gb.parameter(h, layer("post_attention_residual"), {s.hidden}, graph::TensorRole::Other);
    return h;
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace doge_impl

const Family& doge_family() {
  static const Family family{"doge", "models/doge/modeling_doge.py",
                             classes("Doge", {heads::ForCausalLM, heads::ForSequenceClassification}), doge_impl::build};
  return family;
}

}  // namespace neurarch::families
