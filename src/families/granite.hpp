#pragma once
// Granite's decoder spec and GraniteMoE's experts, exported for the models derived from them: GraniteMoE
// keeps Granite's attention, GraniteMoeShared (modular_granitemoeshared.py) derives from GraniteMoE, and
// GraniteMoeHybrid (modular_granitemoehybrid.py) keeps GraniteMoeShared's feed-forward.
#include "families/moe_common.hpp"

namespace neurarch::families::granite {

/// GraniteConfig: Llama's tensors with Granite's defaults, head_dim = hidden / heads (no head_dim key in
/// 4.47.1) and attention_bias on q/k/v/o. The multipliers are config scalars, not weights.
decoder::DecoderSpec spec(const Config& c);
/// The same with another config class's defaults (GraniteSWAConfig).
decoder::DecoderSpec spec(const Config& c, const decoder::LlamaDefaults& defaults);

}  // namespace neurarch::families::granite

namespace neurarch::families::granitemoe {

/// GraniteMoeConfig's experts (num_local_experts, num_experts_per_tok) at the spec's widths.
blocks::MoESpec experts(const Config& c, const decoder::DecoderSpec& s);
/// Those experts in one layer: `block_sparse_moe` with router.layer and the stacked ParallelExperts
/// input_linear (gate and up together) / output_linear.
blocks::MoESpec in_layer(blocks::MoESpec m, const graph::Scope& layer);

}  // namespace neurarch::families::granitemoe

namespace neurarch::families::granitemoeshared {

/// The dense gated `shared_mlp` of layer i under `layer`: input_linear [2 x width, hidden] (gate and up fused),
/// output_linear [hidden, width], no biases.
graph::Value shared_mlp(graph::GraphBuilder& b, const graph::Value& x, std::int64_t i, const graph::Scope& layer,
                        std::int64_t hidden, std::int64_t width, const std::string& activation);

}  // namespace neurarch::families::granitemoeshared
