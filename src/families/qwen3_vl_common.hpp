#pragma once
// What Qwen3-VL and Qwen3-VL-MoE share (models/qwen3_vl/modeling_qwen3_vl.py, models/qwen3_vl_moe, transformers
// 5.24.0): a native-resolution vision transformer under `visual` (Qwen2-VL's Conv3d patches, now with a bias, plus a
// learned pos_embed table of num_position_embeddings rows bilinearly resampled to each image's grid; LayerNorm
// pre-norm blocks with a fused biased qkv, 2-D rotary positions and a linear_fc1 -> gelu_pytorch_tanh -> linear_fc2
// MLP), a PatchMerger (norm over each patch, spatial_merge_size^2 neighbours side by side, linear_fc1 -> GELU ->
// linear_fc2 into out_hidden_size) and one DeepStack merger per deepstack_visual_indexes layer (the same, normed
// after the merge), whose features the text model adds to its first hidden states. The text model is a Qwen3
// decoder (per-head q/k RMSNorm) with interleaved M-RoPE, which changes no tensor.
#include <cstdint>
#include <string_view>

#include "families/family.hpp"
#include "families/llama_common.hpp"

namespace neurarch::families::qwen3_vl {

using blocks::GraphBuilder;
using blocks::Value;

/// The text decoder: Qwen3's spec with Qwen3VLTextConfig's defaults.
decoder::DecoderSpec text_spec(const Config& text);

/// Qwen3-VL-MoE's text decoder: Qwen3VLMoeTextConfig's defaults (hidden 2048, 24 layers, 16 heads of 128, 16 KV
/// heads), Qwen3-MoE's sparse MLP on the layers decoder_sparse_step and mlp_only_layers choose: a router `gate`
/// [num_experts, hidden] (no bias) and the experts fused as transformers 5 stores them, experts.gate_up_proj
/// [experts, 2 x moe_intermediate, hidden] and experts.down_proj [experts, hidden, moe_intermediate] (60 experts of
/// 1408, top 4).
decoder::DecoderSpec moe_text_spec(const Config& text);

/// The vision transformer alone (Qwen3VLVisionModel and the vision models deriving from it) under the current
/// nest: tensors `patch_embed.*`, `pos_embed.*`, `blocks.*`, `merger.*` and, with `deepstack`, the
/// `deepstack_merger_list.*` its config's deepstack_visual_indexes name; the photo sized as build() sizes it.
/// Returns the merged features [image tokens, out_hidden_size].
Value vision_model(const BuildInput& in, GraphBuilder& b, const Config& vision_config, bool deepstack = true);

/// The whole model: `visual`, then the text decoder `text` under `language_model` (its base class
/// `text_class`), `lm_head` at the top for the head class, tied as the composite config's tie_word_embeddings
/// says (transformers 5). The photo is --image-size square, else the tower's native grid
/// (sqrt(num_position_embeddings) patches a side). `deepstack` false: the tower has no DeepStack mergers
/// whatever the vision config says (Qwen3.5's Qwen3_5VisionModel deletes them).
Value build(const BuildInput& in, GraphBuilder& b, const decoder::DecoderSpec& text, std::string_view text_class,
            bool deepstack = true);

}  // namespace neurarch::families::qwen3_vl
