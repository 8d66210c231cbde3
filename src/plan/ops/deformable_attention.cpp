// Multi-scale deformable attention (graph::DeformableAttrs) as transformers 5.24 trains it without the custom
// kernel: the pure-PyTorch MultiScaleDeformableAttention.forward in models/deformable_detr/modeling_deformable_detr.py
// (the kernels-community kernel is CUDA-only and opt-in). Per module, with Q queries, V value tokens, d = heads x
// head_dim and S = levels x points samples per query and head:
// - sampling_offsets and attention_weights both read the queries (plus positions): one input kept by both;
// - value_proj keeps its input (the encoder states: once for the whole decoder when they are not cast);
// - grid_sample keeps the projected values, split by level and reshaped to [heads x head_dim, H, W], and its
//   sampling grid (2 x sampling_locations - 1, per level): V x d and Q x heads x S x 2. The offsets and reference
//   points themselves are not kept: dividing by the level sizes and adding the reference points need no operand
//   for the offsets' gradient;
// - softmax keeps its output, Q x heads x S, and the product with the samples keeps a transposed copy of it and
//   the stacked grid_sample outputs, Q x d x S (the per-level outputs are not kept: stack's backward slices);
// - output_proj keeps its input, Q x d.
// At batch 1 the reshapes are views and the weights' copy does not exist; from batch 2 on they copy, which is what
// is counted (the total is the same for the values and the grids either way). Checked with saved_tensors_hooks on
// CPU (torch 2.13, fp32, batch 2): exact but for the bool padding mask masked_fill keeps (V bytes) and the [levels,
// 2] level sizes (docs/deformable-detection.md). Under autocast softmax runs in fp32 and grid_sampler is a promote
// op (the fp32 reference points make the grid fp32), so the values, the grids, the samples and both weight tensors
// are fp32; output_proj keeps a bf16 cast.
//
// value_proj reads the value node (graph::Operand::Memory): the layer's own stream in an encoder, the encoder's output
// in a decoder, kept once for all the layers that read it unless autocast casts it again for each.
#include "plan/ops/ops.hpp"

namespace neurarch::plan {
namespace {

int deformable_attention_saved(OpContext& ctx, const OpInput& x, NodeActivations& a) {
  const auto& n = x.node;
  const std::int64_t tokens = x.tokens;
  const auto& da = *n.deformable;
  const int c = ctx.compute;
  const int sampled_bytes = ctx.autocast ? 4 : c;
  const std::int64_t d = da.heads * da.head_dim;
  const std::int64_t weights = tokens * da.heads * da.samples;
  ctx.linear_inputs(a, n, graph::Operand::Input, tokens * x.d_in, x.in_bytes,
                    "sampling offsets' and attention weights' input (queries)");
  const auto& values = ctx.g.nodes[static_cast<std::size_t>(da.value_input)];
  ctx.memory_inputs(a, n, values, da.value_len * (values.out.empty() ? 0 : values.out.back()),
                    "value projection input");
  ctx.lora_bottlenecks(a, n, tokens);
  const std::int64_t per_query = da.queries > 0 ? tokens / da.queries : 1;  // 1 unless the graph batches inside
  a.saved.push_back({"projected values, per level (grid_sample input)", per_query * da.value_len * d,
                     sampled_bytes});
  a.saved.push_back({"sampling grids (grid_sample input)", weights * 2, sampled_bytes});
  ctx.softmax(a, "attention weights", weights, ctx.autocast && ctx.s.autocast_softmax_fp32 ? 4 : c);
  a.saved.push_back({"attention weights, transposed copy (for the weighted sum)", weights, sampled_bytes});
  a.saved.push_back({"sampled values (grid_sample outputs, stacked)", tokens * d * da.samples, sampled_bytes});
  ctx.linear_inputs(a, n, graph::Operand::Inner, tokens * d, sampled_bytes, "output projection input");
  ctx.output_dropout(a, n);
  ctx.note_once("deformable",
                "multi-scale deformable attention is sized for transformers' pure-PyTorch path (the default); the "
                "kernels-community CUDA kernel (use_kernels=True) keeps only the values, sampling locations and "
                "attention weights, not the Q x d x samples grid_sample outputs");
  return c;
}

// The sampling itself (the four projections are matmul weights, costed by weight), as the pure-PyTorch
// MultiScaleDeformableAttention computes it: per query, head, sample and channel a bilinear interpolation (four
// corners: 4 multiply-adds, 8 FLOPs) and its share of the weighted sum (2 FLOPs); the softmax and the sampling
// locations are per sample, not per channel, and left out. Backward: grid_sample's gradients for the values
// (scattered to the four corners) and for the grid, and both operands of the product: twice that. Memory traffic:
// the values are read and the samples written and read again.
OpWork deformable_attention_work(const OpCostInput& x) {
  const auto& da = *x.node.deformable;
  const double core = 10.0 * x.tokens * static_cast<double>(da.heads * da.head_dim * da.samples);
  const double traffic = static_cast<double>(da.heads * da.head_dim) *
                         (static_cast<double>(da.value_len) + 2.0 * x.tokens * static_cast<double>(da.samples)) *
                         x.compute_bytes;
  return {.flops_forward = core, .flops_backward = 2.0 * core, .traffic_bytes = traffic};
}

}  // namespace

const OpSchema deformable_attention_op{.matmul = true,
                                       .saved = deformable_attention_saved,
                                       .work = deformable_attention_work};

}  // namespace neurarch::plan
