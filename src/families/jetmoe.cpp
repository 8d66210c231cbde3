// JetMoE (models/jetmoe/modeling_jetmoe.py + configuration_jetmoe.py, transformers 4.47.1): Llama's
// residual stack with experts in both sublayers. The attention is a mixture of attention heads:
// a dense kv_proj [2 x kv_channels x kv_heads, hidden] and routed query/output experts
// (self_attention.experts.{input_linear [experts, kv_channels x kv_heads, hidden], output_linear
// [experts, hidden, kv_channels x kv_heads], router.layer, bias}); each token's num_attention_heads
// query heads come from its top-k experts. The MLP is a mixture of GLU experts (mlp.input_linear
// [experts, 2 x intermediate, hidden], output_linear, router.layer, bias). The head is tied by default.
#include <fmt/format.h>

#include "families/moe_common.hpp"

namespace neurarch::families {
namespace jetmoe_impl {
namespace {

using graph::Value;

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s;
  s.vocab = c.dim({"vocab_size"}, 32000);
  s.hidden = c.dim({"hidden_size"}, 2048);
  s.layers = c.dim({"num_hidden_layers"}, 12);
  s.heads = c.dim({"num_attention_heads"}, 32);
  s.kv_heads = c.dim({"num_key_value_heads"}, 16);
  s.head_dim = c.dim({"kv_channels"}, 128);
  s.intermediate = c.dim({"intermediate_size"}, 5632);
  s.positions = c.dim({"max_position_embeddings"}, 4096);
  s.activation = c.text({"activation_function"}, "silu");
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, true);
  const std::int64_t experts = c.integer({"num_local_experts"}, 8);
  const std::int64_t top_k = c.integer({"num_experts_per_tok"}, 2);
  const double dropout = c.number({"attention_dropout"}, 0.0);

  s.attention_override = [s, experts, top_k, dropout](graph::GraphBuilder& gb, const Value& x, std::int64_t i,
                                                      const graph::Scope& layer) {
    const graph::Scope attn = layer / "self_attention";
    const graph::Scope moa = attn / "experts";
    const std::int64_t kv_width = s.head_dim * s.kv_heads;
    graph::Shape out_shape = x.shape;
    out_shape.back() = s.hidden;
    auto out = gb.node(graph::NodeType::GroupedQueryAttention, blocks::BlockNames{i}.attention(), out_shape, {x}, attn);
    const std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 1;
    gb.at(out).attention = graph::AttentionAttrs{.heads = s.heads, .kv_heads = s.kv_heads, .head_dim = s.head_dim,
                                                 .query_len = seq, .kv_len = seq, .causal = true,
                                                 .dropout = dropout, .rotary = true};
    blocks::linear_tensors(gb, out, moa / "router" / "layer", s.hidden, experts, false);
    gb.parameter(out, (moa / "input_linear")("weight"), {experts, kv_width, s.hidden}, graph::TensorRole::Stacked);
    blocks::linear_tensors(gb, out, attn / "kv_proj", s.hidden, 2 * kv_width, false);
    gb.parameter(out, (moa / "output_linear")("weight"), {experts, s.hidden, kv_width}, graph::TensorRole::Stacked,
                 graph::Operand::Inner);
    gb.parameter(out, moa("bias"), {s.hidden}, graph::TensorRole::Bias);
    const auto& owned = gb.at(out).tensors;
    gb.at(out).moe = graph::MoEAttrs{.experts = experts, .top_k = top_k, .intermediate = kv_width,
                                     .activation = "", .gated = false, .expert_inputs = 1,
                                     .routed_tensors = {owned[1], owned[3]}};
    if (x.shape.back() != s.hidden)
      gb.fail(out, fmt::format("expects hidden size {}, receives {}", s.hidden, x.shape.back()));
    return out;
  };

  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate, .experts = experts, .top_k = top_k,
                             .activation = s.activation};
  s.mlp_override = moe::layer_hook({}, [base](std::int64_t, const graph::Scope& layer) {
    blocks::MoESpec m = base;
    m.module = layer / "mlp";
    m.router = m.module / "router" / "layer";
    m.stacked_input = m.module / "input_linear";
    m.stacked_output = m.module / "output_linear";
    return m;
  });
  const auto hook = s.mlp_override;
  const auto hidden = s.hidden;
  s.mlp_override = [hook, hidden](graph::GraphBuilder& gb, const Value& x, std::int64_t i, const graph::Scope& layer) {
    auto out = hook(gb, x, i, layer);
    gb.parameter(out, (layer / "mlp")("bias"), {hidden}, graph::TensorRole::Bias);  // added to the experts' combined output
    return out;
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace jetmoe_impl

const Family& jetmoe_family() {
  static const Family family{"jetmoe", "models/jetmoe/modeling_jetmoe.py",
                             classes("JetMoe", {heads::ForCausalLM, heads::ForSequenceClassification}), jetmoe_impl::build};
  return family;
}

}  // namespace neurarch::families
