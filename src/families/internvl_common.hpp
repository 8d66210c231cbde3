#pragma once
// InternViT, the vision tower of InternVL (InternVLVisionModel in models/internvl/modeling_internvl.py +
// configuration_internvl.py, transformers 4.57.6), shared by internvl_vision and internvl: a class token and a
// Conv2d patch stem (embeddings.patch_embeddings.projection), learned positions for the configured grid plus the
// class token (bicubically resized to any other image), then pre-norm layers under `encoder.layer` whose attention
// (q/k/v_proj, biased by attention_bias, optional RMSNorms q_norm / k_norm over the whole width, projection_layer)
// and MLP (fc1 / fc2) outputs are scaled by lambda_1 / lambda_2 before their residual adds; the norms are
// LayerNorms or RMSNorms (norm_type). With use_mean_pooling (the default) the tower has no final `layernorm`.
#include <cstdint>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::internvl {

using blocks::GraphBuilder;
using blocks::Value;

struct Tower {
  Value input;                       ///< pixel_values [channels, H, W]
  Value sequence;                    ///< last_hidden_state: [1 + patches, hidden]
  std::vector<Value> hidden_states;  ///< the encoder's input, then every layer's output
  std::int64_t hidden = 0;
  std::int64_t grid_h = 0, grid_w = 0;  ///< patches per column and per row of the image that runs
};

/// The tower at the top of the current nest (embeddings.*, encoder.layer.*, layernorm), from vision config `c`;
/// the image is --image-size square, else image_size.
Tower vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c);

}  // namespace neurarch::families::internvl
