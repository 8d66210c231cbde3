// Normalisation layers: LayerNorm, RMSNorm and batch norm (trained, or frozen into an affine as DETR's backbone is).
#include <algorithm>
#include <numeric>

#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

// LayerNorm keeps its input (cast to fp32 under autocast) and per-row mean and rstd.
int layer_norm_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  a.saved.push_back({"LayerNorm input", x.tokens * x.d_in, ctx.autocast ? 4 : x.in_bytes});
  a.saved.push_back({"LayerNorm mean/rstd", x.tokens * 2, 4});
  const int out = ctx.autocast ? 4 : x.in_bytes;
  // An activation on the normed output (GLM-4.1V's merger: GELU after post_projection_norm) keeps its input.
  if (!x.node.activation.empty()) ctx.activation(a, x.node.activation, x.tokens * x.d, out);
  // BERT-style embeddings drop the normed sum.
  ctx.output_dropout(a, x.node, out);
  return out;
}

// The reference RMSNorm is written in Python: it upcasts to fp32, keeps that for pow and the rsqrt product, and keeps
// the normalised tensor for the weight multiply.
int rms_norm_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  a.saved.push_back({"RMSNorm fp32 input", x.tokens * x.d_in, 4});
  a.saved.push_back({"RMSNorm normalised", x.tokens * x.d_in, std::max(x.in_bytes, 2)});
  a.saved.push_back({"RMSNorm rsqrt", x.tokens, 4});
  return std::max(x.in_bytes, ctx.params);
}

// DETR's frozen batch norm keeps its affine in buffers; a trained one has weight and bias parameters.
bool frozen_affine(const OpContext& ctx, const graph::Node& n) {
  for (int t : n.tensors)
    if (ctx.g.tensors[static_cast<std::size_t>(t)].kind == graph::TensorKind::Parameter) return false;
  return !n.tensors.empty();
}

int batch_norm_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  const std::int64_t elements =
      std::accumulate(x.in_shape.begin(), x.in_shape.end(), std::int64_t{1}, std::multiplies<>());
  if (frozen_affine(ctx, n)) {
    // x * scale + shift with scale and shift computed from buffers: the product needs only the [C] scale for the
    // input gradient, and promotes a bf16 map to the buffers' dtype. ReLU keeps that wider output.
    int out = x.in_bytes;
    for (int t : n.tensors) out = std::max(out, dtype_bytes(ctx.g.tensors[static_cast<std::size_t>(t)].dtype));
    ctx.activation(a, n.activation, elements, out);
    ctx.keep_activation_result(n, out);
    return out;
  }
  // Training-mode batch norm keeps its input and the per-channel batch mean and inverse std (fp32); it runs in its
  // input's dtype under autocast. ReLU after it keeps its output.
  a.saved.push_back({"BatchNorm input", elements, x.in_bytes});
  // Channels lead a [C, H, W] map and close a time-major [frames, channels] sequence (BatchNorm1d).
  const std::int64_t channels = x.in_shape.empty()       ? 0
                                : x.in_shape.size() == 2 ? x.in_shape.back()
                                                         : x.in_shape.front();
  a.saved.push_back({"BatchNorm batch mean/invstd", 2 * channels, 4});
  ctx.activation(a, n.activation, elements);
  // The activation's kept result is the output only when it is in the output's dtype.
  if (x.in_bytes == ctx.compute) ctx.keep_activation_result(n, x.in_bytes);
  return x.in_bytes;
}

}  // namespace

const OpSchema layer_norm_op{.matmul = false, .saved = layer_norm_saved, .work = nullptr};
const OpSchema rms_norm_op{.matmul = false, .saved = rms_norm_saved, .work = nullptr};
const OpSchema batch_norm_op{.matmul = false, .saved = batch_norm_saved, .work = nullptr};

}  // namespace neurarch::plan
