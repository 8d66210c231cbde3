// A Gated DeltaNet mixer as transformers 5.24 trains it on a GPU (models/qwen3_next/modeling_qwen3_next.py,
// models/qwen3_5): with flash-linear-attention and causal-conv1d installed it takes fla's chunk_gated_delta_rule
// and causal_conv1d_fn over its PyTorch fallbacks; the gated RMSNorm stays eager PyTorch (fla's
// FusedRMSNormGated replaces it only under use_kernels=True). What autograd keeps:
// - the input projections keep their input; causal_conv1d_fn (CausalConv1dFn) keeps its input, the
//   concatenated q/k/v [tokens, 2 key_dim + value_dim], and recomputes its SiLU;
// - beta = sigmoid(b) keeps its output; g = -exp(A_log) * softplus(a.float() + dt_bias) keeps softplus's fp32
//   input and output;
// - ChunkGatedDeltaRuleFunction.forward (fla/ops/gated_delta_rule/chunk.py, flash-linear-attention at
//   github.com/fla-org/flash-linear-attention) saves q and k after its in-kernel L2 norm with their fp32 rstd,
//   v, the chunk-local cumulative g (fp32), beta and the solved WY matrix A [tokens, value_heads, chunk] in
//   k's dtype, and recomputes w, u and the chunk states in backward. q and k are counted at value_heads, as
//   the PyTorch path and fla releases without grouped-value support repeat them; newer fla reads them at
//   key_heads. That errs high by 2 x tokens x (value_heads - key_heads) x key_head_dim elements;
// - the eager gated RMSNorm keeps its fp32 input and rstd, the normalised input cast back (for the weight),
//   the weighted product (fp32 when an fp32 weight promotes it), the gate's fp32 copy (silu's input) and
//   silu's output;
// - out_proj keeps its input.
#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

int gated_delta_net_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  const std::int64_t tokens = x.tokens;
  const auto& m = *n.linear_attention;
  const int c = ctx.compute;
  const std::int64_t key_dim = m.key_heads * m.key_head_dim, value_dim = m.value_heads * m.value_head_dim;
  const std::int64_t per_head = tokens * m.value_heads;
  ctx.linear_inputs(a, n, graph::Operand::Input, tokens * x.d_in, x.in_bytes, "input projections' input");
  ctx.lora_bottlenecks(a, n, tokens);
  a.saved.push_back({"causal conv1d input (q, k, v)", tokens * (2 * key_dim + value_dim), c});
  a.saved.push_back({"beta (sigmoid output)", per_head, c});
  a.saved.push_back({"decay: softplus input and output (fp32)", 2 * per_head, 4});
  a.saved.push_back({"delta rule: L2-normed q and k", 2 * per_head * m.key_head_dim, c});
  a.saved.push_back({"delta rule: q and k rstd (fp32)", 2 * per_head, 4});
  a.saved.push_back({"delta rule: v", tokens * value_dim, c});
  a.saved.push_back({"delta rule: cumulative decay (fp32)", per_head, 4});
  a.saved.push_back({"delta rule: WY matrix A", per_head * m.chunk, c});
  a.saved.push_back({"gated RMSNorm: fp32 input", tokens * value_dim, 4});
  a.saved.push_back({"gated RMSNorm: rstd (fp32)", per_head, 4});
  a.saved.push_back({"gated RMSNorm: normalised input", tokens * value_dim, c});
  a.saved.push_back({"gated RMSNorm: weighted output", tokens * value_dim, ctx.autocast ? 4 : c});
  a.saved.push_back({"gated RMSNorm: gate (fp32) and silu output", 2 * tokens * value_dim, 4});
  if (ctx.keeps_input(n, graph::Operand::Inner)) a.saved.push_back({"out_proj input", tokens * value_dim, c});
  ctx.note_once("gdn", "Gated DeltaNet mixers are sized for flash-linear-attention's chunked kernel and "
                       "causal-conv1d; without them transformers' PyTorch fallback keeps fp32 copies of every "
                       "chunk's matrices");
  ctx.output_dropout(a, n);
  return c;
}

// The chunked delta rule (flash-linear-attention's chunk_gated_delta_rule_fwd), per token and value head with chunk
// length C: k k^T within the chunk (2 C dk), the WY products w and u (2 C (dk + dv)), the chunk-to-chunk state update
// (v_new = u - w h, h += k^T v_new: 4 dk dv), the output from the state (2 dk dv) and within the chunk (q k^T, then
// times v_new: 2 C (dk + dv)), and the triangular solve (C^2 / 3). Backward is twice that plus the recomputation of
// w, u and the states it starts with.
OpWork gated_delta_net_work(const OpCostInput& x) {
  const auto& la = *x.node.linear_attention;
  const double dk = static_cast<double>(la.key_head_dim), dv = static_cast<double>(la.value_head_dim);
  const double chunk = static_cast<double>(la.chunk);
  const double per = x.tokens * static_cast<double>(la.value_heads);
  const double recompute = per * (2.0 * chunk * (dk + dv) + 4.0 * dk * dv);
  const double core = per * (2.0 * chunk * dk + 4.0 * chunk * (dk + dv) + 6.0 * dk * dv + chunk * chunk / 3.0);
  return {.flops_forward = core, .flops_backward = 2.0 * core + recompute, .traffic_bytes = 0};
}

}  // namespace

const OpSchema gated_delta_net_op{.matmul = true, .saved = gated_delta_net_saved, .work = gated_delta_net_work};

}  // namespace neurarch::plan
