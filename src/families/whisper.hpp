#pragma once
// Whisper's audio encoder (whisper.cpp), which Qwen2-Audio's and Voxtral's encoders copy.
#include <string>

#include "families/family.hpp"

namespace neurarch::families::whisper {

struct EncoderDims {
  std::int64_t d_model = 0, mel_bins = 0, source_positions = 0, layers = 0, heads = 0, ffn = 0;
  std::string activation;
  double dropout = 0, attention_dropout = 0, activation_dropout = 0;
};

/// The defaults of the config class being read (WhisperConfig's here).
struct EncoderDefaults {
  std::int64_t d_model = 384, mel_bins = 80, source_positions = 1500, layers = 4, heads = 6, ffn = 1536;
};

/// The encoder's keys (d_model / hidden_size, encoder_layers / num_hidden_layers, encoder_ffn_dim /
/// intermediate_size, ...) with `defaults` where the config leaves them out.
EncoderDims read_encoder(const Config& c, const EncoderDefaults& defaults);

/// conv1 and conv2 (kernel 3, the second of stride 2, GELU after each) over log-mel features [mel_bins, frames],
/// the frozen position table embed_positions added whole, and the pre-norm layers under `stack`; the final
/// layer_norm is the caller's. Frames other than 2 x max_source_positions fail, as the reference refuses them.
blocks::Value encoder_layers(const BuildInput& in, blocks::GraphBuilder& b, const EncoderDims& d,
                             const blocks::Scope& stack);

}  // namespace neurarch::families::whisper
