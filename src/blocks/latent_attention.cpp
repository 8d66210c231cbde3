#include "blocks/latent_attention.hpp"

#include <fmt/format.h>

namespace neurarch::blocks {

Value latent_attention(GraphBuilder& b, const Value& x, const std::string& name, const LatentAttentionSpec& s) {
  Shape out_shape = x.shape;
  out_shape.back() = s.hidden;
  auto out = b.node(graph::NodeType::LatentAttention, name, out_shape, {x}, s.module);
  const std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 1;
  const std::int64_t qk_head_dim = s.qk_nope_head_dim + s.qk_rope_head_dim;
  // Every head attends with its own full k and v once kv_b_proj has expanded the latent.
  b.at(out).attention = graph::AttentionAttrs{.heads = s.heads, .kv_heads = s.heads, .head_dim = qk_head_dim,
                                              .query_len = seq, .kv_len = seq, .causal = true,
                                              .dropout = s.dropout, .rotary = s.qk_rope_head_dim > 0};
  b.at(out).latent = graph::LatentAttentionAttrs{s.q_lora_rank, s.kv_lora_rank, s.qk_nope_head_dim,
                                                 s.qk_rope_head_dim, s.v_head_dim};

  // Declaration order (matmul weights: q_a, q_b | q, kv_a, kv_b, o) is what the activation model reads.
  const Scope& m = s.module;
  if (s.q_lora_rank > 0) {
    linear_tensors(b, out, m / "q_a_proj", s.hidden, s.q_lora_rank, s.bias);
    b.parameter(out, (m / "q_a_layernorm")("weight"), {s.q_lora_rank}, graph::TensorRole::Norm);
    linear_tensors(b, out, m / "q_b_proj", s.q_lora_rank, s.heads * qk_head_dim, false, graph::Operand::QueryLatent);
  } else {
    linear_tensors(b, out, m / "q_proj", s.hidden, s.heads * qk_head_dim, false);
  }
  linear_tensors(b, out, m / "kv_a_proj_with_mqa", s.hidden, s.kv_lora_rank + s.qk_rope_head_dim, s.bias);
  b.parameter(out, (m / "kv_a_layernorm")("weight"), {s.kv_lora_rank}, graph::TensorRole::Norm);
  linear_tensors(b, out, m / "kv_b_proj", s.kv_lora_rank, s.heads * (s.qk_nope_head_dim + s.v_head_dim), false,
                 graph::Operand::KvLatent);
  linear_tensors(b, out, m / "o_proj", s.heads * s.v_head_dim, s.hidden, s.bias, graph::Operand::Inner);

  if (x.shape.back() != s.hidden)
    b.fail(out, fmt::format("expects hidden size {}, receives {}", s.hidden, x.shape.back()));
  if (s.qk_rope_head_dim % 2 != 0)
    b.fail(out, fmt::format("qk_rope_head_dim {} is odd: RoPE rotates pairs of channels", s.qk_rope_head_dim));
  return out;
}

}  // namespace neurarch::blocks
