// The model's outputs that feed a loss: a language-model head (its logits and loss are the step's, sized by
// setup_rules' loss_memory) and a two-tower contrastive similarity.
#include <algorithm>

#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

int lm_head_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  // One product, even when the head's matrix is two concatenated (MobileBERT's decoder and dense).
  ctx.linear_inputs(a, n, graph::Operand::Input, x.tokens * x.d_in, x.in_bytes, "LM head input", false, true);
  ctx.lora_bottlenecks(a, n, x.tokens);
  // The loss's buffers are sized for the step's tokens by the memory timeline (MemoryModel::loss_at).
  auto& l = ctx.logits;
  l.tokens += x.tokens;
  l.vocab = std::max(l.vocab, x.d);
  l.compute_bytes = ctx.compute;
  return ctx.compute;
}

// Each tower's embedding is L2-normalised (the norm keeps its input, in fp32 under autocast, and the division keeps
// the norm), then one matmul of the two keeps both normalised operands. The B x B logits and their loss add B values
// per sample, negligible at any batch that fits.
int contrastive_logits_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  std::int64_t elements = 0;
  int widest = ctx.compute;
  for (int i : n.inputs) {
    elements += ctx.g.nodes[static_cast<std::size_t>(i)].out.back();
    widest = std::max(widest, ctx.out_bytes(i));
  }
  a.saved.push_back({"projected embeddings (L2-norm input)", elements, ctx.autocast ? 4 : widest});
  a.saved.push_back({"embedding norms", static_cast<std::int64_t>(n.inputs.size()), 4});
  a.saved.push_back({"normalised embeddings (similarity matmul input)", elements, ctx.compute});
  return 4;  // the bf16 similarities times the fp32 logit_scale
}

}  // namespace

const OpSchema lm_head_op{.matmul = true, .saved = lm_head_saved, .work = nullptr};
const OpSchema contrastive_logits_op{.matmul = false, .saved = contrastive_logits_saved, .work = nullptr};

}  // namespace neurarch::plan
