#pragma once
// The wav2vec2 speech encoder shared by wav2vec2 and hubert: a raw waveform [samples] through a
// stack of strided 1-D convolutions (conv_dim / conv_kernel / conv_stride; each layer gives
// floor((L - kernel) / stride) + 1 frames), a feature projection to hidden_size, a grouped
// positional convolution under weight norm (weight_g / weight_v) added to the frames, and a
// post-norm transformer (or pre-norm with do_stable_layer_norm).
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::wav2vec2 {

struct Layout {
  std::string_view prefix;                   ///< the base model's attribute in head classes
  bool projection_norm_from_config = false;  ///< HuBERT: feat_proj_layer_norm switches the projection's norm
};

/// 16000 samples: one second at the 16 kHz every wav2vec2 feature extractor expects.
inline constexpr std::int64_t kDefaultSamples = 16000;

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout);

}  // namespace neurarch::families::wav2vec2
