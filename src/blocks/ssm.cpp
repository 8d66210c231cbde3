#include "blocks/ssm.hpp"

#include <fmt/format.h>

namespace neurarch::blocks {

Value mamba_mixer(GraphBuilder& b, const Value& x, const std::string& name, const MambaMixerSpec& s) {
  Shape out_shape = x.shape;
  out_shape.back() = s.hidden;
  auto out = b.node(graph::NodeType::StateSpaceMixer, name, out_shape, {x}, s.module);
  const Scope& m = s.module;
  // Declaration order (matmul weights: in_proj, [x_proj, dt_proj,] out_proj) is what the
  // activation model reads.
  if (s.version == 1) {
    const std::int64_t projection = 2 * s.inner;
    b.at(out).ssm = graph::StateSpaceAttrs{.version = 1, .inner = s.inner, .state = s.state,
                                           .conv_kernel = s.conv_kernel, .time_step_rank = s.time_step_rank,
                                           .projection = projection};
    linear_tensors(b, out, m / "in_proj", s.hidden, projection, s.bias);
    b.parameter(out, (m / "conv1d")("weight"), {s.inner, 1, s.conv_kernel},
                graph::TensorRole::Conv, graph::Operand::Internal);
    if (s.conv_bias) b.parameter(out, (m / "conv1d")("bias"), {s.inner}, graph::TensorRole::Bias);
    linear_tensors(b, out, m / "x_proj", s.inner, s.time_step_rank + 2 * s.state, false, graph::Operand::Internal);
    linear_tensors(b, out, m / "dt_proj", s.time_step_rank, s.inner, true, graph::Operand::Internal);
    b.parameter(out, m("A_log"), {s.inner, s.state}, graph::TensorRole::Other);
    b.parameter(out, m("D"), {s.inner}, graph::TensorRole::Other);
    linear_tensors(b, out, m / "out_proj", s.inner, s.hidden, s.out_bias.value_or(s.bias), graph::Operand::Inner);
  } else {
    const std::int64_t conv_dim = s.inner + 2 * s.groups * s.state;
    const std::int64_t projection = s.inner + conv_dim + s.heads;
    b.at(out).ssm = graph::StateSpaceAttrs{.version = 2, .inner = s.inner, .state = s.state,
                                           .conv_kernel = s.conv_kernel, .heads = s.heads, .groups = s.groups,
                                           .projection = projection};
    linear_tensors(b, out, m / "in_proj", s.hidden, projection, s.bias);
    b.parameter(out, (m / "conv1d")("weight"), {conv_dim, 1, s.conv_kernel},
                graph::TensorRole::Conv, graph::Operand::Internal);
    if (s.conv_bias) b.parameter(out, (m / "conv1d")("bias"), {conv_dim}, graph::TensorRole::Bias);
    b.parameter(out, m("dt_bias"), {s.heads}, graph::TensorRole::Bias);
    b.parameter(out, m("A_log"), {s.heads}, graph::TensorRole::Other);
    b.parameter(out, m("D"), {s.heads}, graph::TensorRole::Other);
    if (s.gated_norm) b.parameter(out, (m / "norm")("weight"), {s.inner}, graph::TensorRole::Norm);
    linear_tensors(b, out, m / "out_proj", s.inner, s.hidden, s.out_bias.value_or(s.bias), graph::Operand::Inner);
    if (s.heads * s.head_dim != s.inner)
      b.fail(out, fmt::format("{} heads x head_dim {} = {} channels, but the mixer is expand x hidden = {} wide",
                              s.heads, s.head_dim, s.heads * s.head_dim, s.inner));
    if (s.groups <= 0 || s.heads % s.groups != 0)
      b.fail(out, fmt::format("n_groups {} does not divide {} heads", s.groups, s.heads));
  }
  if (x.shape.back() != s.hidden)
    b.fail(out, fmt::format("expects hidden size {}, receives {}", s.hidden, x.shape.back()));
  return out;
}

}  // namespace neurarch::blocks
