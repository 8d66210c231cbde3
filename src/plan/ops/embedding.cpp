// What enters the model: the graph's inputs, lookup tables (tokens, learned positions, T5's relative buckets) and
// patch embeddings.
#include <algorithm>
#include <numeric>

#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

// Token ids are int64; pixels, features and embeddings given as input are fp32.
int input_saved(OpContext&, const OpInput& x, NodeActivations&) { return x.from_tokens ? 8 : 4; }

// A lookup's backward scatters into the table by the indices it keeps (token ids only: a position table indexed by
// arange keeps them too, counted with the tokens' when they share the operand). Only a trained table needs them.
// A lookup that projects its rows (Transformer-XL's adaptive embedding: emb_projs) keeps them for the projection's
// gradient; with several clusters each token goes through its own cluster's projection only, which depends on the
// text, so every projection is counted over every token: an upper bound.
int lookup_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  if (x.from_tokens && ctx.full()) a.saved.push_back({"lookup indices", rows_of(x.node.out), 8});
  for (int t : ctx.matmuls(x.node, graph::Operand::Input))
    ctx.linear_inputs(a, {t}, rows_of(x.node.out) * ctx.g.tensors[static_cast<std::size_t>(t)].shape.back(), ctx.params,
                      "looked-up rows (projection input)");
  return std::max(x.in_bytes == 8 ? 0 : x.in_bytes, ctx.params);
}

// The convolution over pixels keeps them for its weight's gradient: the model's input itself (counted with the
// step's inputs, memory.cpp), or under autocast a bf16 cast of it.
int patch_embed_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const std::int64_t pixels =
      std::accumulate(x.in_shape.begin(), x.in_shape.end(), std::int64_t{1}, std::multiplies<>());
  if (ctx.full() && ctx.autocast) a.saved.push_back({"pixels (bf16 cast, conv input)", pixels, 2});
  return std::max(ctx.compute, ctx.params);  // CLS tokens are concatenated in parameter precision
}

// An embedding lookup of one bucket index per (query, key) pair; its [heads, q, k] output is added to the scores,
// which keeps nothing.
int relative_position_bias_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& out = x.node.out;
  if (ctx.full() && out.size() == 3) a.saved.push_back({"relative-position bucket indices", out[1] * out[2], 8});
  return ctx.params;
}

}  // namespace

const OpSchema graph_input_op{.matmul = false, .saved = input_saved, .work = nullptr};
const OpSchema lookup_op{.matmul = true, .saved = lookup_saved, .work = nullptr};
const OpSchema patch_embed_op{.matmul = true, .saved = patch_embed_saved, .work = nullptr};
const OpSchema relative_position_bias_op{.matmul = false, .saved = relative_position_bias_saved, .work = nullptr};

}  // namespace neurarch::plan
