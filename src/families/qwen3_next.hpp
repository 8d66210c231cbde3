#pragma once
// What the Gated DeltaNet hybrids share (Qwen3-Next, and Qwen3.5 / Qwen3.5-MoE that derive from it in
// transformers 5.24.0): the layer pattern, the linear-attention mixer read from the linear_* keys, Qwen3's gated
// full attention, and Qwen2-MoE's sparse block with a gated shared expert.
#include <cstdint>
#include <vector>

#include "blocks/gated_delta_net.hpp"
#include "families/llama_common.hpp"
#include "families/moe_common.hpp"

namespace neurarch::families::qwen3_next {

/// Per layer, whether it is a Gated DeltaNet layer: layer_types ("linear_attention"), else every layer but
/// each full_attention_interval-th (default 4), as the config classes fill layer_types.
std::vector<bool> linear_layers(const Config& c, std::int64_t layers);

/// The mixer from linear_num_key_heads, linear_num_value_heads, linear_key_head_dim, linear_value_head_dim and
/// linear_conv_kernel_dim (Qwen3NextConfig's defaults: 16, 32, 128, 128, 4).
blocks::GatedDeltaNetSpec mixer(const Config& c, std::int64_t hidden, bool separate_projections);

/// The decoder with `defaults`: Qwen3's per-head q/k RMSNorm, attention_bias on q/k/v/o, q_proj doubled for the
/// output gate (partial rotary changes no tensor), and the mixer under `linear_attn` on the linear layers.
decoder::DecoderSpec spec(const Config& c, const decoder::LlamaDefaults& defaults, bool separate_projections);

/// Qwen2-MoE's sparse block under `mlp`: router `gate`, experts.<i> of moe_intermediate_size, shared_expert of
/// shared_expert_intermediate_size and its sigmoid shared_expert_gate; `defaults` are the config class's
/// (num_experts, num_experts_per_tok, moe and shared widths).
blocks::MoESpec sparse_block(const Config& c, const decoder::DecoderSpec& s, const blocks::MoESpec& defaults);

/// An mlp_override: sparse_block on every layer sparse[i] says, else the dense gated MLP of intermediate_size.
decltype(decoder::DecoderSpec::mlp_override) mlp(std::vector<bool> sparse, const blocks::MoESpec& block,
                                                 const decoder::DecoderSpec& s);

}  // namespace neurarch::families::qwen3_next
