// wav2vec2-conformer (models/wav2vec2_conformer/modeling_wav2vec2_conformer.py +
// configuration_wav2vec2_conformer.py, transformers 4.47.1): wav2vec2's feature encoder and
// projection, then conformer layers (conformer_common) and a final LayerNorm. Attention positions
// follow position_embeddings_type: "relative" (default; linear_pos, pos_bias_u/v), "rotary" (the
// encoder keeps a persistent inv_freq buffer) or null. The encoder declares wav2vec2's weight-normed
// pos_conv_embed but never calls it. vocab_size defaults to None: ForCTC needs one. Raw 16 kHz
// audio; --seq sets the samples (default 16000 = 1 s).
#include "families/wav2vec2_common.hpp"

namespace neurarch::families {
namespace wav2vec2_conformer_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return wav2vec2::build(in, b,
                         {.prefix = "wav2vec2_conformer", .encoder = wav2vec2::Encoder::Conformer,
                          .stable_option = false, .vocab_default = std::nullopt});
}
}  // namespace
}  // namespace wav2vec2_conformer_impl

const Family& wav2vec2_conformer_family() {
  static const Family family{"wav2vec2-conformer", "models/wav2vec2_conformer/modeling_wav2vec2_conformer.py",
                             classes("Wav2Vec2Conformer", heads::kSpeech), wav2vec2_conformer_impl::build};
  return family;
}

}  // namespace neurarch::families
