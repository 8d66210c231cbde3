#pragma once
// What Llama 3.2 Vision (mllama.cpp) shares with its standalone vision and text models (mllama_vision_model.cpp,
// mllama_text_model.cpp; models/mllama/modeling_mllama.py + configuration_mllama.py, transformers 5.24.0).
#include <cstdint>
#include <vector>

#include "families/family.hpp"
#include "families/llama_common.hpp"

namespace neurarch::families::mllama {

struct VisionOut {
  blocks::Value states;  ///< [tiles x (patches + 1), vision_output_dim]
  std::int64_t tiles = 0, tokens = 0, width = 0;
};

/// MllamaVisionModel under the current nest (tensors `patch_embedding`, `class_embedding`, the gated tile and
/// patch position tables, `layernorm_pre` / `layernorm_post`, `transformer.*`, `global_transformer.*`): one image in
/// max_num_tiles tiles of image_size px (--image-size sets the tile's side); returns the last state side by side
/// with the intermediate_layers_indices states.
VisionOut vision(const BuildInput& in, blocks::GraphBuilder& b, const Config& vision_config);

/// The text decoder (MllamaTextConfig's defaults): Llama's with 8 embedding rows past vocab_size.
struct Text {
  decoder::DecoderSpec spec;
  std::int64_t vocab = 0;  ///< vocab_size: the LM head's rows
  std::vector<std::int64_t> cross_layers;
};
Text text(const Config& text_config);

/// The cross_attention_layers replace self-attention by gated cross-attention to `image` ([tokens, hidden]):
/// cross_attn q/k/v/o, per-head q_norm / k_norm, cross_attn_attn_gate and cross_attn_mlp_gate.
void cross_attend(Text& t, const blocks::Value& image);

/// After the decoder `out` is built: checks cross_attention_layers against the depth and makes input_ids the
/// graph's main input.
void finish_text(blocks::GraphBuilder& b, const blocks::Value& out, const Text& t);

}  // namespace neurarch::families::mllama
