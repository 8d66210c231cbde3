#pragma once
// Voxtral's audio encoder (voxtral_encoder.cpp), the tower of Voxtral (voxtral.cpp).
#include "families/whisper.hpp"

namespace neurarch::families::voxtral {

/// VoxtralEncoderConfig's defaults: Whisper-large-v3's encoder (1280 wide, 32 layers, 20 heads, 128 mel bins).
inline constexpr whisper::EncoderDefaults kEncoderDefaults{
    .d_model = 1280, .mel_bins = 128, .source_positions = 1500, .layers = 32, .heads = 20, .ffn = 5120};

/// The encoder of config `c` under the current nest: Whisper's encoder layers and layer_norm;
/// returns [max_source_positions, hidden_size].
blocks::Value encoder(const BuildInput& in, blocks::GraphBuilder& b, const Config& c);

}  // namespace neurarch::families::voxtral
