// Single linear layers: a dense projection (with its activation and dropout), a pooler over the first token, and a
// classification head.
#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

int linear_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  ctx.linear_inputs(a, n, graph::Operand::Input, x.tokens * x.d_in, x.in_bytes, "dense input");
  ctx.lora_bottlenecks(a, n, x.tokens);
  ctx.activation(a, n.activation, x.tokens * x.d);
  ctx.output_dropout(a, n);
  ctx.keep_activation_result(n, ctx.compute);
  return ctx.compute;
}

// The pooler reads the first token only; its activation (tanh) keeps its output.
int pooler_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  ctx.linear_inputs(a, n, graph::Operand::Input, x.d_in, x.in_bytes, "pooler input (first token)");
  if (!n.activation.empty()) a.saved.push_back({"pooler " + n.activation + " output", x.d, ctx.compute});
  return ctx.compute;
}

int classifier_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  ctx.linear_inputs(a, x.node, graph::Operand::Input, x.tokens * x.d_in, x.in_bytes, "classifier input");
  return ctx.compute;
}

}  // namespace

const OpSchema linear_op{.matmul = true, .saved = linear_saved, .work = nullptr};
const OpSchema pooler_op{.matmul = true, .saved = pooler_saved, .work = nullptr};
const OpSchema classifier_op{.matmul = true, .saved = classifier_saved, .work = nullptr};

}  // namespace neurarch::plan
