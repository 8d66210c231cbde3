// HuBERT (models/hubert/modeling_hubert.py + configuration_hubert.py, transformers 4.47.1):
// wav2vec2's encoder whose feature projection normalises only when feat_proj_layer_norm (default
// true). Raw 16 kHz audio; --seq sets the samples (default 16000 = 1 s).
#include "families/wav2vec2_common.hpp"

namespace neurarch::families {
namespace hubert_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return wav2vec2::build(in, b, {.prefix = "hubert", .projection_norm_from_config = true});
}
}  // namespace
}  // namespace hubert_impl

const Family& hubert_family() {
  static const Family family{"hubert", "models/hubert/modeling_hubert.py", classes("Hubert", heads::kSpeech), hubert_impl::build};
  return family;
}

}  // namespace neurarch::families
