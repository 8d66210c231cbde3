// The position-wise MLP: up (and gate) projections, the activation, down_proj; and RWKV's channel mix, which
// stands in its place.
#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

// RWKV's channel mix (models/rwkv/modeling_rwkv.py, RwkvFeedForward): sigmoid(receptance(xr)) * value(relu(key(xk))^2)
// with xk and xr token-shift mixes. relu keeps its output, which square and value read too; sigmoid keeps its output
// and the product both operands. key and receptance read the input, value the squared ReLU.
int channel_mix_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  const auto& f = *n.feed_forward;
  const int c = ctx.compute;
  const std::int64_t inter = x.tokens * f.intermediate, out = x.tokens * n.out.back();
  if (f.token_shift)
    token_shift_inputs(ctx, a, x);
  else
    ctx.linear_inputs(a, n, graph::Operand::Input, x.tokens * x.d_in, x.in_bytes, "MLP input");
  ctx.lora_bottlenecks(a, n, x.tokens);
  a.saved.push_back({"squared ReLU: ReLU output (also the value projection's input)", inter, c});
  if (f.output_gate) {
    a.saved.push_back({"receptance (sigmoid output)", out, c});
    a.saved.push_back({"value projection output (for the receptance product)", out, c});
  }
  ctx.output_dropout(a, n);
  return c;
}

// An ungated ReLU MLP whose down projection keeps a plain input keeps ReLU's output once: ReLU's backward reads the
// very tensor the down projection keeps.
bool relu_output_is_down_input(const OpContext& ctx, const graph::Node& n) {
  const auto& f = *n.feed_forward;
  return !f.gated && f.activation == "relu" && ctx.keeps_plain_input(n, graph::Operand::Inner);
}

int feed_forward_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  const auto& f = *n.feed_forward;
  if (f.token_shift || f.output_gate) return channel_mix_saved(ctx, x, a);
  const int c = ctx.compute;
  const std::int64_t inter = x.tokens * f.intermediate;
  ctx.linear_inputs(a, n, graph::Operand::Input, x.tokens * x.d_in, x.in_bytes, "MLP input");
  ctx.lora_bottlenecks(a, n, x.tokens);
  if (!relu_output_is_down_input(ctx, n)) ctx.activation(a, f.activation, inter);
  if (f.gated) a.saved.push_back({"gate activation and up projection (for the product)", inter * 2, c});
  if (f.inner_dropout > 0) a.saved.push_back({"dropout mask before the down projection", inter, ctx.mask_bytes(c)});
  ctx.output_projection_input(a, n, inter, "down projection input");
  ctx.output_dropout(a, n);
  return c;
}

// Backward, in the order autograd runs it: the down projection hands back the intermediate's gradient and frees its
// input; the gate product (gated) hands back two gradients and frees its operands; the activation hands back one and
// frees what it kept. The intermediates are in the compute dtype. RWKV's channel mix steps like an ungated ReLU.
OpTransients feed_forward_transients(const OpContext& ctx, const OpInput& x) {
  const auto& f = *x.node.feed_forward;
  // Two at once: the gate's and the up projection's once the product's is freed with the down input; or, where
  // ReLU's output is the down input, which stays until ReLU's backward, the down projection's and ReLU's.
  const bool channel_mix = f.token_shift || f.output_gate;
  const std::int64_t gradients = f.gated || channel_mix || relu_output_is_down_input(ctx, x.node) ? 2 : 1;
  // The up (and gate) projections' weight gradients, which the step counts with the node, come after.
  return {.forward = 0,
          .backward = gradients * x.tokens * f.intermediate * ctx.compute,
          .gradients_after = ctx.weight_gradient_bytes(x.node, graph::Operand::Input)};
}

}  // namespace

const OpSchema feed_forward_op{
    .matmul = true, .saved = feed_forward_saved, .work = nullptr, .transients = feed_forward_transients};

}  // namespace neurarch::plan
