// UniSpeech (models/unispeech/modeling_unispeech.py + configuration_unispeech.py, transformers
// 4.47.1): wav2vec2's encoder unchanged (feature encoder, projection, weight-normed positional
// conv, post-norm or do_stable_layer_norm pre-norm layers) under the "unispeech" prefix. Raw 16 kHz
// audio; --seq sets the samples (default 16000 = 1 s).
#include "families/wav2vec2_common.hpp"

namespace neurarch::families {
namespace unispeech_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return wav2vec2::build(in, b, {.prefix = "unispeech"});
}
}  // namespace
}  // namespace unispeech_impl

const Family& unispeech_family() {
  static const Family family{"unispeech", "models/unispeech/modeling_unispeech.py",
                             classes("UniSpeech", heads::kSpeech), unispeech_impl::build};
  return family;
}

}  // namespace neurarch::families
