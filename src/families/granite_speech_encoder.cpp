// Granite Speech's encoder on its own (GraniteSpeechCTCEncoder in models/granite_speech/modeling_granite_speech.py,
// transformers 5.24.0): granite_speech's conformer CTC encoder at the top level; GraniteSpeechEncoderConfig's
// defaults.
#include "families/granite_speech.hpp"

namespace neurarch::families {
namespace granite_speech_encoder_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return granite_speech::ctc_encoder(b, in.config);
}

}  // namespace
}  // namespace granite_speech_encoder_impl

const Family& granite_speech_encoder_family() {
  static const Family family{"granite_speech_encoder", "models/granite_speech/modeling_granite_speech.py",
                             {{"GraniteSpeechCTCEncoder", Head::Base}}, granite_speech_encoder_impl::build};
  return family;
}

}  // namespace neurarch::families
