#include "blocks/deformable_attention.hpp"

#include <fmt/format.h>

namespace neurarch::blocks {

Value deformable_attention(GraphBuilder& b, const Value& queries, const Value& value, const std::string& name,
                           const DeformableAttentionSpec& s) {
  const Scope& m = s.module;
  const std::int64_t query_len = queries.shape.empty() ? 0 : queries.shape.front();
  const std::int64_t value_len = value.shape.empty() ? 0 : value.shape.front();
  Shape out_shape = queries.shape;
  if (!out_shape.empty()) out_shape.back() = s.hidden;
  auto out = b.node(graph::NodeType::DeformableAttention, name, out_shape, {queries, value}, m);
  b.at(out).deformable = graph::DeformableAttrs{.heads = s.heads,
                                                .head_dim = s.heads > 0 ? s.hidden / s.heads : 0,
                                                .levels = s.levels,
                                                .points = s.points,
                                                .samples = s.levels * s.points,
                                                .queries = query_len,
                                                .value_len = value_len,
                                                .value_input = value.node,
                                                .reference_coords = s.reference_coords};
  b.at(out).dropout = s.output_dropout;
  const std::int64_t sampled = s.heads * s.levels * s.points;
  linear_tensors(b, out, m / "sampling_offsets", s.hidden, sampled * 2, true);
  linear_tensors(b, out, m / "attention_weights", s.hidden, sampled, true);
  linear_tensors(b, out, m / "value_proj", s.hidden, s.hidden, true, graph::Operand::Memory);
  linear_tensors(b, out, m / "output_proj", s.hidden, s.hidden, true, graph::Operand::Inner);
  if (s.heads <= 0 || s.hidden % s.heads != 0)
    b.fail(out, fmt::format("d_model {} is not divisible by {} heads", s.hidden, s.heads));
  else if (queries.shape.size() != 2 || queries.shape.back() != s.hidden)
    b.fail(out, fmt::format("expects [queries, {}], receives {} dimensions", s.hidden, queries.shape.size()));
  else if (value.shape.size() != 2 || value.shape.back() != s.hidden)
    b.fail(out, fmt::format("expects values [tokens, {}]", s.hidden));
  return out;
}

}  // namespace neurarch::blocks
