#include <fmt/format.h>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

Value attention(GraphBuilder& b, const Value& x, const std::string& name, const AttentionSpec& s) {
  std::int64_t kv_heads = s.kv_heads > 0 ? s.kv_heads : s.heads;
  std::int64_t head_dim = s.head_dim > 0 ? s.head_dim : s.hidden / s.heads;
  graph::NodeType type = kv_heads == s.heads ? graph::NodeType::MultiHeadAttention
                         : kv_heads == 1     ? graph::NodeType::MultiQueryAttention
                                             : graph::NodeType::GroupedQueryAttention;
  Shape out_shape = x.shape;
  out_shape.back() = s.hidden;
  auto out = b.node(type, name, out_shape, {x}, s.module);
  std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 1;
  b.at(out).attention =
      graph::AttentionAttrs{s.heads, kv_heads, head_dim, seq, seq, s.causal, s.window, s.dropout, s.rotary, !s.qkv.empty()};
  b.at(out).attention->clamped_scores = s.clamped_scores;
  b.at(out).attention->softmax_fp32 = s.softmax_fp32;
  b.at(out).attention->output_gate = s.output_gate;
  b.at(out).dropout = s.output_dropout;

  std::int64_t q_out = s.heads * head_dim;
  std::int64_t kv_out = kv_heads * head_dim;
  const std::int64_t q_projected = s.output_gate ? 2 * q_out : q_out;  // each head's query, then its gate
  if (!s.qkv.empty()) {
    linear_tensors(b, out, s.qkv, s.hidden, q_projected + 2 * kv_out, s.qkv_bias, s.layout);
  } else {
    linear_tensors(b, out, s.q, s.hidden, q_projected, s.qkv_bias, s.layout);
    linear_tensors(b, out, s.k, s.hidden, kv_out, s.qkv_bias && s.k_bias, s.layout);
    linear_tensors(b, out, s.v, s.hidden, kv_out, s.qkv_bias, s.layout);
  }
  linear_tensors(b, out, s.o, q_out, s.hidden, s.o_bias, graph::Operand::Inner, s.layout);

  if (x.shape.back() != s.hidden)
    b.fail(out, fmt::format("expects hidden size {}, receives {}", s.hidden, x.shape.back()));
  if (s.require_divisible && s.head_dim == 0 && s.hidden % s.heads != 0)
    b.fail(out, fmt::format("hidden size {} not divisible by {} heads", s.hidden, s.heads));
  if (s.heads % kv_heads != 0)
    b.fail(out, fmt::format("{} KV heads do not divide {} query heads", kv_heads, s.heads));
  if (s.window > 0 && s.window < seq)
    b.note(fmt::format("{}: sliding window of {} tokens over a {}-token sequence", b.at(out).name, s.window, seq));
  return out;
}

Value feed_forward(GraphBuilder& b, const Value& x, const std::string& name, const FeedForwardSpec& s) {
  Shape out_shape = x.shape;
  out_shape.back() = s.hidden;
  auto out = b.node(s.gated ? graph::NodeType::GatedFeedForward : graph::NodeType::FeedForward, name, out_shape, {x},
                    s.module);
  b.at(out).feed_forward = graph::FeedForwardAttrs{s.hidden, s.intermediate, s.activation, s.gated, s.inner_dropout};
  b.at(out).dropout = s.output_dropout;
  if (!s.gate_up.empty()) {
    linear_tensors(b, out, s.gate_up, s.hidden, 2 * s.intermediate, s.bias, s.layout);
  } else {
    if (s.gated) linear_tensors(b, out, s.gate, s.hidden, s.intermediate, s.bias, s.layout);
    linear_tensors(b, out, s.up, s.hidden, s.intermediate, s.bias, s.layout);
  }
  linear_tensors(b, out, s.down, s.intermediate, s.hidden, s.down_bias, graph::Operand::Inner, s.layout);
  if (x.shape.back() != s.hidden)
    b.fail(out, fmt::format("expects hidden size {}, receives {}", s.hidden, x.shape.back()));
  return out;
}

}  // namespace neurarch::blocks
