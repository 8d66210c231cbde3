// The residual stream's element-wise ops: the sum, a learned per-channel scale, and the graph's output.
#include <algorithm>
#include <numeric>

#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

// Addition's backward needs neither operand; an activation after the sum (ResNet's ReLU) keeps its own. The sum
// promotes to the widest operand (the fp32 residual stream stays fp32 under autocast).
int add_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  int out = x.in_bytes;
  for (int i : n.inputs) out = std::max(out, ctx.out_bytes(i));
  if (!n.activation.empty())
    ctx.activation(a, n.activation, std::accumulate(n.out.begin(), n.out.end(), std::int64_t{1}, std::multiplies<>()),
                   out);
  ctx.keep_activation_result(n, out);
  return out;
}

// gamma * x keeps x for gamma's gradient, which only a trained scale has.
int layer_scale_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  if (ctx.full()) a.saved.push_back({"layer-scale input", x.tokens * x.d, x.in_bytes});
  return std::max(x.in_bytes, ctx.params);
}

int output_saved(OpContext&, const OpInput& x, NodeActivations&) { return x.in_bytes; }

}  // namespace

const OpSchema add_op{.matmul = false, .saved = add_saved, .work = nullptr};
const OpSchema layer_scale_op{.matmul = false, .saved = layer_scale_saved, .work = nullptr};
const OpSchema output_op{.matmul = false, .saved = output_saved, .work = nullptr};

}  // namespace neurarch::plan
