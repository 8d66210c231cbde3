#pragma once
// EnCodec (encodec.cpp), exported for MusicGen, whose audio_encoder is an EncodecModel.
#include "families/family.hpp"

namespace neurarch::families::encodec {

/// EncodecModel of config `c` under the caller's scope: a waveform [samples * audio_channels] -> the decoded
/// waveform, through the encoder, the residual vector quantizer and the decoder.
graph::Value model(const BuildInput& in, graph::GraphBuilder& b, const Config& c);

}  // namespace neurarch::families::encodec
