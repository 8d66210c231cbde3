#pragma once
// Granite SWA's attention (granite_swa.cpp), which GraniteMoE SWA (granitemoe_swa.cpp) keeps.
#include "families/llama_common.hpp"

namespace neurarch::families::granite_swa {

/// Puts on `s` the attention sinks (`self_attn.sinks` [heads], eager only), the sliding windows of layer_types
/// (default: every fourth layer from the first full, the rest sliding_window) and RoPE where layer_rope_theta is
/// not 0.
void sliding_attention(decoder::DecoderSpec& s, const Config& c);

}  // namespace neurarch::families::granite_swa
