// SpeechEncoderDecoderModel (models/speech_encoder_decoder/modeling_speech_encoder_decoder.py, transformers 4.47.1): a speech
// encoder (Wav2Vec2 and its kin, base class) feeding a causal LM; the projection to the decoder's width is
// sized by the encoder's output_hidden_size (its adapter's width) before its hidden_size.
#include "families/encoder_decoder_common.hpp"

namespace neurarch::families {
namespace speech_encoder_decoder_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return encoder_decoder::build(in, b, {.owner = "SpeechEncoderDecoderModel", .speech = true});
}
}  // namespace
}  // namespace speech_encoder_decoder_impl

const Family& speech_encoder_decoder_family() {
  static const Family family{"speech-encoder-decoder", "models/speech_encoder_decoder/modeling_speech_encoder_decoder.py", {{"SpeechEncoderDecoderModel", Head::Seq2SeqLM}}, speech_encoder_decoder_impl::build};
  return family;
}

}  // namespace neurarch::families
