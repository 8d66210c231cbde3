// wav2vec2 (models/wav2vec2/modeling_wav2vec2.py + configuration_wav2vec2.py, transformers
// 4.47.1). Raw 16 kHz audio; --seq sets the samples (default 16000 = 1 s). ForCTC and the
// deprecated ForMaskedLM put lm_head (hidden -> vocab_size) on every frame; sequence
// classification projects to classifier_proj_size and mean-pools. masked_spec_embed exists
// when mask_time_prob or mask_feature_prob is positive.
#include "families/wav2vec2_common.hpp"

namespace neurarch::families {
namespace wav2vec2_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return wav2vec2::build(in, b, {.prefix = "wav2vec2"});
}
}  // namespace
}  // namespace wav2vec2_impl

const Family& wav2vec2_family() {
  static const Family family{"wav2vec2", "models/wav2vec2/modeling_wav2vec2.py",
                             classes("Wav2Vec2", {heads::ForCTC, heads::ForMaskedLM, heads::ForSequenceClassification}),
                             wav2vec2_impl::build};
  return family;
}

}  // namespace neurarch::families
