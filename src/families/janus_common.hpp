#pragma once
// What Janus (janus.cpp) shares with its standalone vision model (janus_vision_model.cpp;
// models/janus/modeling_janus.py + configuration_janus.py).
#include "families/family.hpp"

namespace neurarch::families::janus {

/// JanusVisionModel under the current nest: SigLIP's vision transformer without the attention-probe head or the
/// inner `vision_model.` (tensors `embeddings.*`, `encoder.layers.*` with the attention output `projection_layer`,
/// `post_layernorm`); one image_size image (--image-size); returns the post-LayerNormed patches.
blocks::Value vision_model(const BuildInput& in, blocks::GraphBuilder& b, const Config& vision_config);

}  // namespace neurarch::families::janus
