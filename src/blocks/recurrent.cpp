#include "blocks/recurrent.hpp"

#include <fmt/format.h>

namespace neurarch::blocks {
namespace {

Value mixer_node(GraphBuilder& b, const Value& x, const std::string& name, std::int64_t hidden, const Scope& module,
                 const graph::RecurrentAttrs& attrs) {
  Shape out_shape = x.shape;
  out_shape.back() = hidden;
  auto out = b.node(graph::NodeType::RecurrentMixer, name, out_shape, {x}, module);
  b.at(out).recurrent = attrs;
  if (x.shape.back() != hidden) b.fail(out, fmt::format("expects hidden size {}, receives {}", hidden, x.shape.back()));
  return out;
}

}  // namespace

Value rg_lru_block(GraphBuilder& b, const Value& x, const std::string& name, const RgLruBlockSpec& s) {
  const Scope& m = s.module;
  const std::int64_t block = s.heads > 0 ? s.width / s.heads : 0;
  // The recurrent state is one fp32 scalar per channel.
  auto out = mixer_node(b, x, name, s.hidden, m,
                        {.cell = graph::RecurrentCell::RgLru, .width = s.width, .heads = s.heads, .state = s.width,
                         .conv_kernel = s.conv_kernel});
  b.at(out).activation = s.activation;
  linear_tensors(b, out, m / "linear_y", s.hidden, s.width, true);
  linear_tensors(b, out, m / "linear_x", s.hidden, s.width, true);
  b.parameter(out, (m / "conv_1d")("weight"), {s.width, 1, s.conv_kernel},
              graph::TensorRole::Conv, graph::Operand::Internal);
  b.parameter(out, (m / "conv_1d")("bias"), {s.width}, graph::TensorRole::Bias);
  const Scope lru = m / "rg_lru";
  b.parameter(out, lru("recurrent_param"), {s.width}, graph::TensorRole::Other);
  b.parameter(out, lru("input_gate_weight"), {s.heads, block, block},
              graph::TensorRole::Stacked, graph::Operand::Internal);
  b.parameter(out, lru("input_gate_bias"), {s.heads, block}, graph::TensorRole::Bias);
  b.parameter(out, lru("recurrent_gate_weight"), {s.heads, block, block}, graph::TensorRole::Stacked,
              graph::Operand::Internal);
  b.parameter(out, lru("recurrent_gate_bias"), {s.heads, block}, graph::TensorRole::Bias);
  linear_tensors(b, out, m / "linear_out", s.width, s.hidden, true, graph::Operand::Inner);
  // The gates reshape the width into heads x (width / heads) blocks.
  if (s.heads <= 0 || s.width % s.heads != 0)
    b.fail(out, fmt::format("lru_width {} does not split into {} gate blocks", s.width, s.heads));
  if (s.conv_kernel < 1) b.fail(out, fmt::format("conv1d_width {} leaves no convolution", s.conv_kernel));
  return out;
}

Value wkv_time_mix(GraphBuilder& b, const Value& x, const std::string& name, const WkvTimeMixSpec& s) {
  const Scope& m = s.module;
  // Per channel a numerator, a denominator and their max exponent, plus the previous token for the shift.
  auto out = mixer_node(b, x, name, s.hidden, m,
                        {.cell = graph::RecurrentCell::Wkv, .width = s.width, .heads = 1, .state = 3 * s.width + s.hidden,
                         .token_shift = true});
  b.parameter(out, m("time_decay"), {s.width}, graph::TensorRole::Other);
  b.parameter(out, m("time_first"), {s.width}, graph::TensorRole::Other);
  for (const char* mix : {"time_mix_key", "time_mix_value", "time_mix_receptance"}) b.parameter(out, m(mix), {1, 1, s.hidden}, graph::TensorRole::Other);
  linear_tensors(b, out, m / "key", s.hidden, s.width, false);
  linear_tensors(b, out, m / "value", s.hidden, s.width, false);
  linear_tensors(b, out, m / "receptance", s.hidden, s.width, false);
  linear_tensors(b, out, m / "output", s.width, s.hidden, false, graph::Operand::Inner);
  return out;
}

Value wkv_channel_mix(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                      std::int64_t hidden, std::int64_t intermediate) {
  Shape out_shape = x.shape;
  out_shape.back() = hidden;
  auto out = b.node(graph::NodeType::FeedForward, name, out_shape, {x}, module);
  b.at(out).feed_forward = graph::FeedForwardAttrs{.in = hidden, .intermediate = intermediate, .activation = "relu2",
                                                   .output_gate = true, .token_shift = true};
  b.parameter(out, module("time_mix_key"), {1, 1, hidden}, graph::TensorRole::Other);
  b.parameter(out, module("time_mix_receptance"), {1, 1, hidden}, graph::TensorRole::Other);
  // Declared as the planner reads them: the input projection, the down projection, then the gate.
  linear_tensors(b, out, module / "key", hidden, intermediate, false);
  linear_tensors(b, out, module / "value", intermediate, hidden, false, graph::Operand::Inner);
  linear_tensors(b, out, module / "receptance", hidden, hidden, false);
  if (x.shape.back() != hidden) b.fail(out, fmt::format("expects hidden size {}, receives {}", hidden, x.shape.back()));
  return out;
}

Value mlstm_layer(GraphBuilder& b, const Value& x, const std::string& name, const MlstmSpec& s) {
  const Scope& m = s.module;
  const std::int64_t key_head_dim = s.heads > 0 ? s.qk_dim / s.heads : 0;
  const std::int64_t head_dim = s.heads > 0 ? s.v_dim / s.heads : 0;
  // Per head a [key_head_dim, head_dim] memory, a key_head_dim normaliser and a scalar max.
  auto out = mixer_node(b, x, name, s.hidden, m,
                        {.cell = graph::RecurrentCell::Mlstm, .width = s.v_dim, .heads = s.heads,
                         .key_head_dim = key_head_dim, .state = s.heads * (key_head_dim * head_dim + key_head_dim + 1),
                         .chunk = s.chunk});
  if (s.fused) {
    linear_tensors(b, out, m / "qkv_opreact", s.hidden, 2 * s.qk_dim + 2 * s.v_dim, s.bias);
    linear_tensors(b, out, m / "ifgate_preact", s.hidden, 2 * s.heads, true);
  } else {
    linear_tensors(b, out, m / "q", s.hidden, s.qk_dim, s.bias);
    linear_tensors(b, out, m / "k", s.hidden, s.qk_dim, s.bias);
    linear_tensors(b, out, m / "v", s.hidden, s.v_dim, s.bias);
    linear_tensors(b, out, m / "ogate_preact", s.hidden, s.v_dim, s.bias);
    // The gates always have a bias, whatever use_bias says.
    linear_tensors(b, out, m / "igate_preact", s.hidden, s.heads, true);
    linear_tensors(b, out, m / "fgate_preact", s.hidden, s.heads, true);
  }
  b.parameter(out, (m / "multihead_norm")("weight"), {s.v_dim}, graph::TensorRole::Norm);
  if (s.bias) b.parameter(out, (m / "multihead_norm")("bias"), {s.v_dim}, graph::TensorRole::Bias);
  linear_tensors(b, out, m / "out_proj", s.v_dim, s.hidden, s.bias, graph::Operand::Inner);
  // q, k and v are reshaped to heads x (dim / heads).
  if (s.heads <= 0 || s.qk_dim % s.heads != 0 || s.v_dim % s.heads != 0)
    b.fail(out, fmt::format("{} heads do not divide the q/k width {} and the v width {}", s.heads, s.qk_dim, s.v_dim));
  return out;
}

Value lightning_attention(GraphBuilder& b, const Value& x, const std::string& name, const LightningSpec& s) {
  const Scope& m = s.module;
  const std::int64_t width = s.heads * s.head_dim;
  // Per head the [head_dim, head_dim] sum of decayed k^T v.
  auto out = mixer_node(b, x, name, s.hidden, m,
                        {.cell = graph::RecurrentCell::Lightning, .width = width, .heads = s.heads,
                         .key_head_dim = s.head_dim, .state = s.heads * s.head_dim * s.head_dim, .chunk = s.block});
  linear_tensors(b, out, m / "qkv_proj", s.hidden, 3 * width, false);
  linear_tensors(b, out, m / "output_gate", s.hidden, width, false);
  b.parameter(out, (m / "norm")("weight"), {width}, graph::TensorRole::Norm);
  // Computed at construction from the head count and the layer index, and saved with the model.
  b.buffer(out, m("slope_rate"), {s.heads, 1, 1}, b.param_dtype());
  b.buffer(out, m("query_decay"), {s.heads, s.block, 1}, b.param_dtype());
  b.buffer(out, m("key_decay"), {s.heads, s.block, 1}, b.param_dtype());
  b.buffer(out, m("diagonal_decay"), {1, s.heads, s.block, s.block}, b.param_dtype());
  linear_tensors(b, out, m / "out_proj", width, s.hidden, false, graph::Operand::Inner);
  if (s.heads <= 0 || s.head_dim <= 0) b.fail(out, fmt::format("{} heads of {} leave no width", s.heads, s.head_dim));
  return out;
}

}  // namespace neurarch::blocks
