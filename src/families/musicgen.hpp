#pragma once
// MusicGen's composite model (musicgen.cpp), shared with MusicGen Melody (musicgen_melody.cpp), which
// conditions its decoder by prefixing the projected text and chroma instead of cross-attending to the text.
#include <cstdint>
#include <optional>
#include <string>

#include "families/family.hpp"

namespace neurarch::families::musicgen {

enum class Conditioning {
  CrossAttention,  ///< MusicGen: every decoder layer has encoder_attn over the (projected) T5 states
  Prefix,          ///< MusicGen Melody: [chroma_length projected chroma frames, text states] precede the codes
};

/// The decoder config (MusicgenDecoderConfig / MusicgenMelodyDecoderConfig, same defaults) as far as its tensors and
/// dropouts depend on it.
struct DecoderDims {
  std::int64_t hidden = 1024, layers = 24, heads = 16, ffn = 4096, vocab = 2048, codebooks = 4, positions = 2048;
  std::string activation = "gelu";
  double dropout = 0.1, attention_dropout = 0.0, activation_dropout = 0.0;
};
DecoderDims read_decoder(const Config& decoder_config);

/// Musicgen(Melody)ForCausalLM under `top`: num_codebooks token tables summed per frame under
/// `top.model.decoder`, pre-norm layers (encoder_attn over `memory` when given), one lm_head per codebook under
/// `top.lm_heads`, their logits stacked; `prefix` (Melody's conditioning) precedes the codes.
graph::Value causal_lm(const BuildInput& in, graph::GraphBuilder& b, const DecoderDims& d, const graph::Scope& top,
                       std::optional<graph::Value> prefix, std::optional<graph::Value> memory);

/// Musicgen(Melody)ForConditionalGeneration: text_encoder (T5EncoderModel), audio_encoder (EncodecModel) and
/// decoder (Musicgen(Melody)ForCausalLM) from the config's sub-configs of those names.
graph::Value model(const BuildInput& in, graph::GraphBuilder& b, Conditioning conditioning);

}  // namespace neurarch::families::musicgen
