#include "blocks/seq2seq.hpp"

#include <fmt/format.h>

namespace neurarch::blocks {
namespace {
std::int64_t length_of(const Shape& s) { return s.size() >= 2 ? s[s.size() - 2] : 1; }
}  // namespace

Value cross_attention(GraphBuilder& b, const Value& x, const Value& memory, const std::string& name,
                      const AttentionSpec& s, std::int64_t kv_hidden) {
  const std::int64_t kv_in = kv_hidden > 0 ? kv_hidden : s.hidden;
  const std::int64_t kv_heads = s.kv_heads > 0 ? s.kv_heads : s.heads;
  const std::int64_t head_dim = s.head_dim > 0 ? s.head_dim : s.hidden / s.heads;
  graph::NodeType type = kv_heads == s.heads ? graph::NodeType::MultiHeadAttention
                         : kv_heads == 1     ? graph::NodeType::MultiQueryAttention
                                             : graph::NodeType::GroupedQueryAttention;
  Shape out_shape = x.shape;
  out_shape.back() = s.hidden;
  auto out = b.node(type, name, out_shape, {x, memory}, s.module);
  graph::AttentionAttrs attrs{s.heads, kv_heads, head_dim, length_of(x.shape), length_of(memory.shape), false, 0,
                              s.dropout, false, false};
  attrs.kv_input = memory.node;
  b.at(out).attention = attrs;
  b.at(out).dropout = s.output_dropout;

  const std::int64_t q_out = s.heads * head_dim;
  const std::int64_t kv_out = kv_heads * head_dim;
  linear_tensors(b, out, s.q, s.hidden, q_out, s.qkv_bias, s.layout);
  linear_tensors(b, out, s.k, kv_in, kv_out, s.qkv_bias && s.k_bias, graph::Operand::Memory, s.layout);
  linear_tensors(b, out, s.v, kv_in, kv_out, s.qkv_bias, graph::Operand::Memory, s.layout);
  linear_tensors(b, out, s.o, q_out, s.hidden, s.o_bias, graph::Operand::Inner, s.layout);

  if (x.shape.back() != s.hidden)
    b.fail(out, fmt::format("expects hidden size {}, receives {}", s.hidden, x.shape.back()));
  if (memory.shape.back() != kv_in)
    b.fail(out, fmt::format("expects encoder states of width {}, receives {}", kv_in, memory.shape.back()));
  if (s.require_divisible && s.head_dim == 0 && s.hidden % s.heads != 0)
    b.fail(out, fmt::format("hidden size {} not divisible by {} heads", s.hidden, s.heads));
  if (s.heads % kv_heads != 0)
    b.fail(out, fmt::format("{} KV heads do not divide {} query heads", kv_heads, s.heads));
  return out;
}

Value relative_position_bias(GraphBuilder& b, const Value& x, const std::string& name, const RelativeBiasSpec& s) {
  const std::int64_t seq = length_of(x.shape);
  const std::int64_t queries = s.query_len > 0 ? s.query_len : seq;
  const std::int64_t keys = s.key_len > 0 ? s.key_len : seq;
  auto out = b.node(graph::NodeType::RelativePositionBias, name, {s.heads, queries, keys}, {x}, s.module);
  b.parameter(out, s.module("weight"), {s.buckets, s.heads}, graph::TensorRole::Embedding);
  return out;
}

void add_score_bias(GraphBuilder& b, const Value& attention, const Value& bias) {
  b.at(attention).inputs.push_back(bias.node);
}

}  // namespace neurarch::blocks
