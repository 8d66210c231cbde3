// Multi-head attention (grouped and multi-query too; self- or cross-attention) as transformers runs it: q/k/v
// projections, RoPE or none, the attention product (attention_rules.hpp), an optional output gate, o_proj.
#include <algorithm>

#include <fmt/format.h>

#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

// Cross-attention: q reads the decoder stream; k and v read the encoder's last state, which every decoder layer
// shares (OpContext::memory_inputs).
void cross_attention_inputs(OpContext& ctx, NodeActivations& a, const OpInput& x) {
  const auto& n = x.node;
  const auto& at = *n.attention;
  ctx.linear_inputs(a, n, graph::Operand::Input, x.tokens * x.d_in, x.in_bytes, "q projection input");
  const auto& memory = ctx.g.nodes[static_cast<std::size_t>(at.kv_input)];
  const std::int64_t per_token = x.tokens / std::max<std::int64_t>(at.query_len, 1);
  const std::int64_t elements = per_token * at.kv_len * (memory.out.empty() ? 0 : memory.out.back());
  ctx.memory_inputs(a, n, memory, elements, "k/v projections' input (encoder states)");
}

int attention_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  const auto& at = *n.attention;
  const int c = ctx.compute;
  const std::int64_t tokens = x.tokens;
  const std::int64_t h = at.heads, g = at.kv_heads, hd = at.head_dim, tq = at.query_len, tk = at.kv_len;
  const std::int64_t per_token = tokens / std::max<std::int64_t>(tq, 1);  // 1 unless the graph batches inside
  // k and v are expanded to every query head before SDPA when heads are grouped (repeat_kv).
  const std::int64_t kv_saved_heads = g < h ? h : g;
  if (at.kv_input >= 0)
    cross_attention_inputs(ctx, a, x);
  else
    ctx.linear_inputs(a, n, graph::Operand::Input, tokens * x.d_in, x.in_bytes, "q/k/v projections' input", false,
                      ctx.s.fused_qkv);
  ctx.lora_bottlenecks(a, n, tokens);

  if (at.kv_input >= 0) {
    a.saved.push_back({"q", tokens * h * hd, c});
    a.saved.push_back({"k/v of the encoder states", per_token * tk * 2 * kv_saved_heads * hd, c});
  } else if (at.rotary) {
    a.saved.push_back({"q/k projections (kept by RoPE)", tokens * (h + g) * hd, c});
    a.saved.push_back({"rotate_half(q/k)", tokens * (h + g) * hd, c});
    a.saved.push_back({"q after RoPE", tokens * h * hd, c});
    a.saved.push_back({"k after RoPE", tokens * kv_saved_heads * hd, c});
    a.saved.push_back({"v", tokens * kv_saved_heads * hd, c});
  } else {
    a.saved.push_back({"q/k/v", tokens * (h + 2 * kv_saved_heads) * hd, c});
  }
  // Disentangled terms: each bmm keeps the relative table projected for every head and repeated for every sample;
  // p2c's also keeps the unscaled key layer (the content score read a scaled copy).
  const std::int64_t projected_table = per_token * h * at.relative_span * hd;
  if (at.c2p) a.saved.push_back({"c2p: relative table through the key projection", projected_table, c});
  if (at.p2c) {
    a.saved.push_back({"p2c: relative table through the query projection", projected_table, c});
    a.saved.push_back({"p2c: key layer", tokens * kv_saved_heads * hd, c});
  }
  attention_product_saved(ctx, a, n, tokens, tokens * h * hd);
  if (at.output_gate) {
    // attn_output * sigmoid(gate): the product keeps the heads' output (a contiguous copy of the kernel's) and the
    // sigmoid's output, which sigmoid's own backward reuses.
    a.saved.push_back({"heads' output (for the output gate)", tokens * h * hd, c});
    a.saved.push_back({"output gate (sigmoid output)", tokens * h * hd, c});
  }
  ctx.output_projection_input(a, n, tokens * h * hd, "output projection input");
  ctx.output_dropout(a, n);
  return c;
}

}  // namespace

void attention_product_saved(OpContext& ctx, NodeActivations& a, const graph::Node& n, std::int64_t tokens,
                             std::int64_t output) {
  const auto& at = *n.attention;
  const int c = ctx.compute;
  const std::int64_t h = at.heads, tq = at.query_len, tk = at.kv_len;
  const std::int64_t per_token = tokens / std::max<std::int64_t>(tq, 1);  // 1 unless the graph batches inside
  const auto rule = score_rule(at, ctx.s, ctx.autocast, c);
  if (rule.fused) {
    a.saved.push_back({"attention output (SDPA)", output, c});
    a.saved.push_back({"log-sum-exp", per_token * h * tq, 4});
    return;
  }
  OpContext::keep(a, rule.kept, per_token * h * tq * tk);
  if (rule.math_path) {
    // The math path's scaled fp32 copies of q and k, with v, replace the q/k/v the fused kernel would keep.
    if (ctx.autocast) {
      const std::int64_t kv_heads = at.kv_heads < h ? h : at.kv_heads;
      a.saved.push_back({"SDPA math path: q, k, v in fp32 (beyond the bf16 ones)",
                         tokens * at.head_dim * (h + 2 * kv_heads), 2});
    }
    return;
  }
  if (ctx.s.attention != AttentionImpl::SDPA)
    ctx.note_once("eager", "eager attention keeps the full score and probability matrices (heads x seq x seq)");
  if (!at.sdpa && ctx.first_note("eager-only"))
    ctx.note(fmt::format("{} has no SDPA path in the reference: its score and probability matrices are kept "
                         "whatever --attention says",
                         n.name));
}

OpWork attention_product_work(const OpCostInput& x) {
  const auto& at = *x.node.attention;
  const double per_token =
      static_cast<double>(std::max<std::int64_t>(x.input_rows / std::max<std::int64_t>(at.query_len, 1), 1));
  const auto work = attention_work(at, per_token, score_rule(at, x.setup, x.autocast, x.compute_bytes));
  return {.flops_forward = work.flops_forward,
          .flops_backward = 2.0 * work.flops_forward,
          .traffic_bytes = work.traffic_bytes};
}

OpTransients attention_product_transients(const OpContext& ctx, const OpInput& x, std::int64_t qk_dim,
                                          std::int64_t v_dim) {
  const auto& at = *x.node.attention;
  const std::int64_t tokens = x.tokens;
  const int c = ctx.compute;
  const std::int64_t h = at.heads, tq = at.query_len, tk = at.kv_len;
  const std::int64_t per_token = tokens / std::max<std::int64_t>(tq, 1);  // 1 unless the graph batches inside
  // Grouped k and v were expanded to every query head (repeat_kv): their gradients are too, until summed back.
  const std::int64_t kv_heads = at.kv_heads < h ? h : at.kv_heads;
  const std::int64_t v_gradient = per_token * tk * kv_heads * v_dim * c;
  const std::int64_t qk_gradients = (tokens * h + per_token * tk * kv_heads) * qk_dim * c;
  const auto per_score = score_transients(at, ctx.s, ctx.autocast, c, at.causal || x.from_tokens);
  const std::int64_t scores = per_token * h * tq * tk;
  // v's gradient comes with PV's backward, q's and k's with QK^T's, when only the scores' gradient is left; the
  // q/k/v projections' weight gradients, which the step counts with the node, come after both.
  return {.forward = scores * per_score.forward,
          .backward = std::max(scores * per_score.backward + v_gradient,
                               scores * per_score.scores_gradient + v_gradient + qk_gradients),
          .gradients_after = ctx.weight_gradient_bytes(x.node, graph::Operand::Input) +
                             ctx.weight_gradient_bytes(x.node, graph::Operand::Memory)};
}

namespace {

OpTransients attention_transients(const OpContext& ctx, const OpInput& x) {
  const auto& at = *x.node.attention;
  return attention_product_transients(ctx, x, at.head_dim, at.head_dim);
}

}  // namespace

const OpSchema attention_op{
    .matmul = true, .saved = attention_saved, .work = attention_product_work, .transients = attention_transients};

}  // namespace neurarch::plan
