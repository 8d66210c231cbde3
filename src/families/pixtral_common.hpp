#pragma once
// Pixtral's vision encoder (models/pixtral/modeling_pixtral.py, transformers 4.47.1; reused by Mistral3 in
// 4.57.6): a bias-free patch Conv2d, an RMSNorm (ln_pre), then pre-RMSNorm layers (attention_norm,
// bias-free q/k/v/o with 2-D rotary positions, ffn_norm, a gated bias-free MLP) and no final norm. It reads
// images at their own resolution: the photo (--image-size, else image_size, the longest edge the processor
// allows) becomes (side / patch)^2 patch tokens.
#include <cstdint>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::pixtral {

struct Encoder {
  std::vector<blocks::Value> hidden_states;  ///< ln_pre's output, then every layer's output
  std::int64_t hidden = 0;
  std::int64_t side = 0;  ///< patches per image side
};

/// The encoder under the current nest (`patch_conv`, `ln_pre`, `transformer.layers.*`; nodes named by the nest).
Encoder encoder(const BuildInput& in, blocks::GraphBuilder& b, const Config& c);

}  // namespace neurarch::families::pixtral
