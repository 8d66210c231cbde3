#pragma once
// MusicGen's composite model (musicgen.cpp), shared with MusicGen Melody (musicgen_melody.cpp), which
// conditions its decoder by prefixing the projected text and chroma instead of cross-attending to the text.
#include "families/family.hpp"

namespace neurarch::families::musicgen {

enum class Conditioning {
  CrossAttention,  ///< MusicGen: every decoder layer has encoder_attn over the (projected) T5 states
  Prefix,          ///< MusicGen Melody: [chroma_length projected chroma frames, text states] precede the codes
};

/// Musicgen(Melody)ForConditionalGeneration: text_encoder (T5EncoderModel), audio_encoder (EncodecModel) and
/// decoder (Musicgen(Melody)ForCausalLM) from the config's sub-configs of those names.
graph::Value model(const BuildInput& in, graph::GraphBuilder& b, Conditioning conditioning);

}  // namespace neurarch::families::musicgen
