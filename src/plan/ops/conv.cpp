// Convolutions over feature maps ([C, H, W]) and over time ([channels, frames]), and pooling.
#include <numeric>

#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

std::int64_t elements_of(const graph::Shape& s) {
  return std::accumulate(s.begin(), s.end(), std::int64_t{1}, std::multiplies<>());
}

// The weight gradient needs the input (a bf16 cast of an fp32 map under autocast); frozen convolutions (LoRA, QLoRA)
// need only their weights for the input gradient.
int conv2d_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  const bool cast = ctx.autocast && x.in_bytes > 2;
  // Uncast, the input a convolution keeps is the tensor its producer made: when a ReLU already keeps it (or a sibling
  // convolution of a residual branch does), only the adapters' own copies are new.
  const bool shared = x.in && !cast && ctx.already_kept(*x.in, x.in_bytes);
  ctx.linear_inputs(a, n, graph::Operand::Input, elements_of(x.in_shape), x.in_bytes, "conv input", shared);
  if (x.in && ctx.recorded(n.index) && !cast && ctx.keeps_plain_input(n, graph::Operand::Input))
    ctx.keep_output(*x.in, x.in_bytes);
  // An activation and dropout on the conv's output (SegFormer's Mix-FFN) keep their own.
  const std::int64_t produced = elements_of(n.out);
  ctx.activation(a, n.activation, produced);
  if (n.dropout > 0) a.saved.push_back({"dropout mask", produced, ctx.mask_bytes(ctx.compute)});
  ctx.keep_activation_result(n, ctx.compute);
  return ctx.compute;
}

// A convolution over time keeps its input for the weight gradient (cast once under autocast), plus what its
// activation function keeps. LFM2's gated short convolution (graph::ConvAttrs::gated) also keeps its gate operands.
int conv1d_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  const auto& cv = *n.conv;
  ctx.linear_inputs(a, n, graph::Operand::Input, cv.in_channels * cv.in_len, x.in_bytes, "convolution input");
  if (cv.gated && !n.inputs.empty()) {
    a.saved.push_back({"gate operands B, C, x (the projection output both products keep)",
                       elements_of(ctx.g.nodes[static_cast<std::size_t>(n.inputs.front())].out), x.in_bytes});
    const std::int64_t uncut = (cv.in_len + 2 * cv.padding - cv.kernel) / std::max<std::int64_t>(cv.stride, 1) + 1;
    a.saved.push_back(
        {"convolution output before the cut (kept by the product with C)", cv.out_channels * uncut, ctx.compute});
  }
  // The activation rule takes what the activation produces; a GLU halves the convolution's channels.
  const std::int64_t produced = n.activation == "glu" ? cv.out_channels / 2 : cv.out_channels;
  ctx.activation(a, n.activation, produced * cv.out_len);
  ctx.output_dropout(a, n);
  return ctx.compute;
}

// Max pooling keeps its input and the argmax of every output (int64); average pooling needs only the shapes.
int pool_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  if (n.spatial && n.spatial->max) {
    if (!x.in || !ctx.already_kept(*x.in, x.in_bytes))
      a.saved.push_back({"max-pool input", elements_of(x.in_shape), x.in_bytes});
    if (x.in && ctx.recorded(n.index)) ctx.keep_output(*x.in, x.in_bytes);
    a.saved.push_back({"max-pool indices", elements_of(n.out), 8});
  }
  return x.in_bytes;
}

}  // namespace

const OpSchema conv2d_op{.matmul = true, .saved = conv2d_saved, .work = nullptr};
const OpSchema conv1d_op{.matmul = true, .saved = conv1d_saved, .work = nullptr};
const OpSchema pool_op{.matmul = false, .saved = pool_saved, .work = nullptr};

}  // namespace neurarch::plan
