#pragma once
// Granite Speech's conformer CTC encoder (granite_speech.cpp), exported for its standalone model
// (granite_speech_encoder.cpp).
#include "families/family.hpp"

namespace neurarch::families::granite_speech {

/// GraniteSpeechCTCEncoder under the current nest (tensors `input_linear`, `layers.*`, the mid-layer CTC head
/// `out` / `out_mid`) over 30 s of stacked mel frames; returns the last layer's states [frames, hidden_dim].
blocks::Value ctc_encoder(blocks::GraphBuilder& b, const Config& encoder_config);

}  // namespace neurarch::families::granite_speech
