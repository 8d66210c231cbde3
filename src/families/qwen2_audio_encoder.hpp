#pragma once
// Qwen2-Audio's audio encoder (qwen2_audio_encoder.cpp), the tower of Qwen2-Audio (qwen2_audio.cpp).
#include "families/whisper.hpp"

namespace neurarch::families::qwen2_audio {

/// Qwen2AudioEncoderConfig's defaults: Whisper-large-v3's encoder (1280 wide, 32 layers, 20 heads, 128 mel bins).
inline constexpr whisper::EncoderDefaults kEncoderDefaults{
    .d_model = 1280, .mel_bins = 128, .source_positions = 1500, .layers = 32, .heads = 20, .ffn = 5120};

/// The encoder of config `c` under the current nest: Whisper's encoder layers, AvgPool1d(2, stride 2) over time,
/// then layer_norm; returns [max_source_positions / 2, d_model].
blocks::Value encoder(const BuildInput& in, blocks::GraphBuilder& b, const Config& c);

}  // namespace neurarch::families::qwen2_audio
