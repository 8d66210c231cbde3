// UniSpeech-SAT (models/unispeech_sat/modeling_unispeech_sat.py + configuration_unispeech_sat.py,
// transformers 4.47.1): wav2vec2's encoder unchanged under the "unispeech_sat" prefix; the speaker-
// aware pre-training lives in heads this file does not build. Raw 16 kHz audio; --seq sets the
// samples (default 16000 = 1 s).
#include "families/wav2vec2_common.hpp"

namespace neurarch::families {
namespace unispeech_sat_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return wav2vec2::build(in, b, {.prefix = "unispeech_sat"});
}
}  // namespace
}  // namespace unispeech_sat_impl

const Family& unispeech_sat_family() {
  static const Family family{"unispeech-sat", "models/unispeech_sat/modeling_unispeech_sat.py",
                             classes("UniSpeechSat", heads::kSpeech), unispeech_sat_impl::build};
  return family;
}

}  // namespace neurarch::families
