// EncoderDecoderModel (models/encoder_decoder/modeling_encoder_decoder.py, transformers 4.47.1): any registered
// text encoder (AutoModel: its base class, pooler included) and any registered causal LM as the decoder
// (AutoModelForCausalLM), whose cross-attention reads the encoder's last hidden state.
#include "families/encoder_decoder_common.hpp"

namespace neurarch::families {
namespace encoder_decoder_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return encoder_decoder::build(in, b, {.owner = "EncoderDecoderModel"});
}
}  // namespace
}  // namespace encoder_decoder_impl

const Family& encoder_decoder_family() {
  static const Family family{"encoder-decoder", "models/encoder_decoder/modeling_encoder_decoder.py", {{"EncoderDecoderModel", Head::Seq2SeqLM}}, encoder_decoder_impl::build};
  return family;
}

}  // namespace neurarch::families
