#pragma once
// What Llama 4 (llama4.cpp) shares with its standalone vision model (llama4_vision_model.cpp;
// models/llama4/modeling_llama4.py + configuration_llama4.py).
#include "families/family.hpp"

namespace neurarch::families::llama4 {

/// Llama4VisionModel under the current nest (tensors `patch_embedding.linear`, `class_embedding`,
/// `positional_embedding_vlm`, `layernorm_pre`, `model.layers.*`, `layernorm_post`, `vision_adapter.mlp.*`): one
/// image_size image (--image-size; the position table fits only the configured size); returns the adapted image
/// tokens [tokens, projector_output_dim].
blocks::Value vision_model(const BuildInput& in, blocks::GraphBuilder& b, const Config& vision_config);

}  // namespace neurarch::families::llama4
