#include "blocks/gated_delta_net.hpp"

#include <fmt/format.h>

namespace neurarch::blocks {

Value gated_delta_net(GraphBuilder& b, const Value& x, const std::string& name, const GatedDeltaNetSpec& s) {
  Shape out_shape = x.shape;
  out_shape.back() = s.hidden;
  auto out = b.node(graph::NodeType::GatedDeltaNet, name, out_shape, {x}, s.module);
  const Scope& m = s.module;
  const std::int64_t key_dim = s.key_heads * s.key_head_dim;
  const std::int64_t value_dim = s.value_heads * s.value_head_dim;
  const std::int64_t conv_dim = 2 * key_dim + value_dim;  // the convolution runs over q, k and v
  // Declaration order is what the activation model reads: the input projections first, out_proj last.
  if (s.separate_projections) {
    linear_tensors(b, out, m / "in_proj_qkv", s.hidden, conv_dim, false);
    linear_tensors(b, out, m / "in_proj_z", s.hidden, value_dim, false);
    linear_tensors(b, out, m / "in_proj_b", s.hidden, s.value_heads, false);
    linear_tensors(b, out, m / "in_proj_a", s.hidden, s.value_heads, false);
  } else {
    linear_tensors(b, out, m / "in_proj_qkvz", s.hidden, conv_dim + value_dim, false);
    linear_tensors(b, out, m / "in_proj_ba", s.hidden, 2 * s.value_heads, false);
  }
  b.at(out).linear_attention =
      graph::LinearAttentionAttrs{.key_heads = s.key_heads, .value_heads = s.value_heads,
                                  .key_head_dim = s.key_head_dim, .value_head_dim = s.value_head_dim,
                                  .conv_kernel = s.conv_kernel};
  b.parameter(out, (m / "conv1d")("weight"), {conv_dim, 1, s.conv_kernel},
              graph::TensorRole::Conv, graph::Operand::Internal);
  b.parameter(out, m("dt_bias"), {s.value_heads}, graph::TensorRole::Bias);
  b.parameter(out, m("A_log"), {s.value_heads}, graph::TensorRole::Other);
  b.parameter(out, (m / "norm")("weight"), {s.value_head_dim}, graph::TensorRole::Norm);  // one gated RMSNorm shared by every value head
  linear_tensors(b, out, m / "out_proj", value_dim, s.hidden, false, graph::Operand::Inner);

  if (s.key_heads <= 0 || s.value_heads % s.key_heads != 0)
    b.fail(out, fmt::format("{} linear key heads do not divide {} value heads", s.key_heads, s.value_heads));
  if (s.conv_kernel < 1) b.fail(out, fmt::format("linear_conv_kernel_dim {} leaves no convolution", s.conv_kernel));
  if (x.shape.back() != s.hidden)
    b.fail(out, fmt::format("expects hidden size {}, receives {}", s.hidden, x.shape.back()));
  return out;
}

}  // namespace neurarch::blocks
