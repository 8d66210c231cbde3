// WavLM (models/wavlm/modeling_wavlm.py + configuration_wavlm.py, transformers 4.47.1): wav2vec2's
// feature encoder, projection and positional conv; its attention adds a bucketed relative-position
// bias (rel_attn_embed [num_buckets, heads], only in layer 0, reused by every layer) scaled per head
// by a gate from the queries (gru_rel_pos_linear [8, head_dim], gru_rel_pos_const [1, heads, 1, 1]).
// Post-norm, or pre-norm with do_stable_layer_norm. Raw 16 kHz audio; --seq sets the samples.
#include "families/wav2vec2_common.hpp"

namespace neurarch::families {
namespace wavlm_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return wav2vec2::build(in, b, {.prefix = "wavlm", .encoder = wav2vec2::Encoder::WavLM});
}
}  // namespace
}  // namespace wavlm_impl

const Family& wavlm_family() {
  static const Family family{"wavlm", "models/wavlm/modeling_wavlm.py", classes("WavLM", heads::kSpeech), wavlm_impl::build};
  return family;
}

}  // namespace neurarch::families
