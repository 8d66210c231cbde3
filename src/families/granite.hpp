#pragma once
// Granite's decoder spec and GraniteMoE's experts, exported for the models derived from them: GraniteMoE
// keeps Granite's attention, and GraniteMoeShared (modular_granitemoeshared.py) derives from GraniteMoE.
#include "families/moe_common.hpp"

namespace neurarch::families::granite {

/// GraniteConfig: Llama's tensors with Granite's defaults, head_dim = hidden / heads (no head_dim key in
/// 4.47.1) and attention_bias on q/k/v/o. The multipliers are config scalars, not weights.
decoder::DecoderSpec spec(const Config& c);

}  // namespace neurarch::families::granite

namespace neurarch::families::granitemoe {

/// GraniteMoeConfig's experts (num_local_experts, num_experts_per_tok) at the spec's widths.
blocks::MoESpec experts(const Config& c, const decoder::DecoderSpec& s);
/// Those experts in one layer: `block_sparse_moe` with router.layer and the stacked ParallelExperts
/// input_linear (gate and up together) / output_linear.
blocks::MoESpec in_layer(blocks::MoESpec m, const graph::Scope& layer);

}  // namespace neurarch::families::granitemoe
