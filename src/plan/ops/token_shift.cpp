// RWKV's token shift: each projection reads hidden * mix + shifted * (1 - mix), a new tensor per projection. The
// products keep the input and the shifted copy (ZeroPad2d's output) for the mix weights' gradient, which only full
// training has; the projections keep their own mixes.
#include "plan/ops/ops.hpp"

namespace neurarch::plan {

void token_shift_inputs(OpContext& ctx, NodeActivations& a, const OpInput& x) {
  if (ctx.full()) {
    a.saved.push_back({"token shift: input", x.tokens * x.d_in, x.in_bytes});
    a.saved.push_back({"token shift: shifted input", x.tokens * x.d_in, x.in_bytes});
  }
  for (int t : ctx.matmuls(x.node, graph::Operand::Input))
    ctx.linear_inputs(a, {t}, x.tokens * x.d_in, ctx.autocast ? x.in_bytes : ctx.compute,
                      "token-shift mix (projection input)");
}

}  // namespace neurarch::plan
