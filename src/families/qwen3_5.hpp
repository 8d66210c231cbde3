#pragma once
// Qwen3.5's text models (models/qwen3_5, models/qwen3_5_moe, transformers 5.24.0), which derive from
// Qwen3-Next: the same layer pattern, gated attention and Gated DeltaNet, with the mixer's input projections
// split (in_proj_qkv, in_proj_z, in_proj_b, in_proj_a). The dense model has a gated MLP on every layer; the MoE
// model Qwen2-MoE's sparse block with a gated shared expert on every layer.
#include "families/qwen3_next.hpp"

namespace neurarch::families::qwen3_5 {

/// Qwen3_5TextConfig: vocabulary 248320, hidden 4096, MLP 12288, 32 layers, 16 heads, 4 KV heads, head_dim 256.
decoder::DecoderSpec text_spec(const Config& text);

/// Qwen3_5MoeTextConfig: hidden 2048, 40 layers, 2 KV heads, 256 experts of 512 (top 8) and a shared expert of
/// 512 on every layer.
decoder::DecoderSpec moe_text_spec(const Config& text);

}  // namespace neurarch::families::qwen3_5
