// DeepSeek's multi-head latent attention (MLA) as the reference runs it: eager projections, then the attention
// product. The q and kv down-projections both read the layer input; each latent's RMSNorm keeps its fp32 input,
// normalised copy and rsqrt; the up-projections keep the normed latents; the RoPE parts go through fp32; q, k (nope
// and rope parts concatenated) and v reach the attention product, and o_proj keeps the heads' output.
#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

int latent_attention_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  const auto& l = *n.latent;
  const auto& at = *n.attention;
  const int c = ctx.compute;
  const std::int64_t tokens = x.tokens;
  const std::int64_t h = at.heads, qk = l.qk_nope_head_dim + l.qk_rope_head_dim, v = l.v_head_dim;
  ctx.linear_inputs(a, n, graph::Operand::Input, tokens * x.d_in, x.in_bytes, "q/kv down-projections' input");
  ctx.lora_bottlenecks(a, n, tokens);
  // The norm's output is weight * x in the input's dtype: fp32 with fp32 weights, cast again by autocast.
  const int latent_bytes = std::max(c, ctx.params);
  auto latent_norm = [&](std::int64_t width, const std::string& what) {
    a.saved.push_back({what + " RMSNorm fp32 input", tokens * width, 4});
    a.saved.push_back({what + " RMSNorm normalised", tokens * width, std::max(c, 2)});
    a.saved.push_back({what + " RMSNorm rsqrt", tokens, 4});
  };
  if (l.q_lora_rank > 0) {
    latent_norm(l.q_lora_rank, "q latent");
    ctx.linear_inputs(a, n, graph::Operand::QueryLatent, tokens * l.q_lora_rank, latent_bytes,
                      "q up-projection input");
  }
  latent_norm(l.kv_lora_rank, "kv latent");
  ctx.linear_inputs(a, n, graph::Operand::KvLatent, tokens * l.kv_lora_rank, latent_bytes, "kv up-projection input");
  if (l.qk_rope_head_dim > 0)
    a.saved.push_back({"q/k RoPE parts (fp32)", tokens * (h + 1) * l.qk_rope_head_dim, 4});
  a.saved.push_back({"q, k and v", tokens * h * (2 * qk + v), c});
  attention_product_saved(ctx, a, n, tokens, tokens * h * v);
  ctx.output_projection_input(a, n, tokens * h * v, "output projection input");
  ctx.output_dropout(a, n);
  return c;
}

OpTransients latent_attention_transients(const OpContext& ctx, const OpInput& x) {
  const auto& l = *x.node.latent;
  return attention_product_transients(ctx, x, l.qk_nope_head_dim + l.qk_rope_head_dim, l.v_head_dim);
}

}  // namespace

const OpSchema latent_attention_op{.matmul = true,
                                   .saved = latent_attention_saved,
                                   .work = attention_product_work,
                                   .transients = latent_attention_transients};

}  // namespace neurarch::plan
