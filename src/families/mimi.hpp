#pragma once
// Mimi (mimi.cpp), exported for the models that carry it as their codec: Moshi's audio encoder, Kyutai
// speech-to-text's and CSM's codec_model.
#include <string>

#include "families/family.hpp"

namespace neurarch::families::mimi {

/// MimiModel from `in.config` (a mimi config): waveform -> SEANet encoder -> transformer -> quantizer ->
/// transformer -> SEANet decoder; `in.requested_seq` sets the samples (default: one second).
graph::Value model(const BuildInput& in, graph::GraphBuilder& b);

/// MimiEncoderModel: waveform -> SEANet encoder -> encoder_transformer -> downsample (the continuous latents);
/// `in.requested_seq` sets the samples (default: one second).
graph::Value encoder_model(const BuildInput& in, graph::GraphBuilder& b);

/// MimiDecoderModel: latent frames -> upsample -> decoder_transformer -> SEANet decoder; `in.requested_seq` sets
/// the frames (default: one second at frame_rate).
graph::Value decoder_model(const BuildInput& in, graph::GraphBuilder& b);

/// MimiModel built under `module` (e.g. "codec_model") as its own branch, its blocks after the ones built so far.
void nested_codec(graph::GraphBuilder& b, const Config& codec_config, const std::string& module);

}  // namespace neurarch::families::mimi
