#pragma once
// The composite encoder-decoders (models/encoder_decoder/modeling_encoder_decoder.py and its vision and
// speech twins, transformers 4.47.1): any registered model as the encoder (its base class, under `encoder`),
// any registered causal LM as the decoder (under `decoder`), built by their own families from the `encoder`
// and `decoder` sub-configs. The decoder's cross-attention reads the encoder's last hidden state, through
// `enc_to_dec_proj` when the two widths differ and the decoder does not say it reads the encoder's width
// (cross_attention_hidden_size).
#include <string_view>
#include <utility>

#include "families/family.hpp"

namespace neurarch::families::encoder_decoder {

struct Composite {
  std::string_view owner;  ///< the class, for errors: "EncoderDecoderModel"
  /// SpeechEncoderDecoderModel sizes the projection by the encoder's output_hidden_size (the adapter's
  /// width) before its hidden_size.
  bool speech = false;
};

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Composite& composite);

/// The sub-config under `key`; InvalidInput naming the key when absent (the reference's composite configs refuse
/// to exist without their parts). `owner` is the composite's class, for the message.
Config sub_config(const Config& c, std::string_view key, std::string_view owner);

/// The sub-config's family and its first class with `head` (as AutoModel / AutoModelForCausalLM /
/// AutoModelForSeq2SeqLM pick it); Unsupported naming the sub-config's model_type otherwise. `role` names the part.
std::pair<const Family*, const ClassDef*> find_part(const Config& c, Head head, std::string_view role);

}  // namespace neurarch::families::encoder_decoder
