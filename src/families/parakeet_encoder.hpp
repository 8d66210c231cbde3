#pragma once
// Parakeet's FastConformer encoder (parakeet_encoder.cpp), exported for ParakeetForCTC, which builds it
// from its encoder_config under `encoder`.
#include "families/family.hpp"

namespace neurarch::families::parakeet {

/// The encoder of ParakeetEncoderConfig `c`: log-mel frames [frames, num_mel_bins] -> [frames / 8, hidden].
graph::Value encoder(const BuildInput& in, graph::GraphBuilder& b, const Config& c);

}  // namespace neurarch::families::parakeet
