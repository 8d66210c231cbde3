#pragma once
// The composite encoder-decoders (models/encoder_decoder/modeling_encoder_decoder.py and its vision and
// speech twins, transformers 4.47.1): any registered model as the encoder (its base class, under `encoder`),
// any registered causal LM as the decoder (under `decoder`), built by their own families from the `encoder`
// and `decoder` sub-configs. The decoder's cross-attention reads the encoder's last hidden state, through
// `enc_to_dec_proj` when the two widths differ and the decoder does not say it reads the encoder's width
// (cross_attention_hidden_size).
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::encoder_decoder {

struct Composite {
  std::string_view owner;  ///< the class, for errors: "EncoderDecoderModel"
  /// SpeechEncoderDecoderModel sizes the projection by the encoder's output_hidden_size (the adapter's
  /// width) before its hidden_size.
  bool speech = false;
};

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Composite& composite);

}  // namespace neurarch::families::encoder_decoder
