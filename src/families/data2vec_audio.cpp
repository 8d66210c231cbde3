// data2vec-audio (models/data2vec/modeling_data2vec_audio.py + configuration_data2vec_audio.py,
// transformers 4.47.1): wav2vec2's encoder with a LayerNorm after every feature conv (the config has
// no feat_extract_norm) and, instead of one weight-normed positional conv, num_conv_pos_embeddings
// (default 5) grouped convs of conv_pos_kernel_size (19), each followed by a LayerNorm without
// parameters and the activation. Post-norm layers only. Raw 16 kHz audio; --seq sets the samples.
#include "families/wav2vec2_common.hpp"

namespace neurarch::families {
namespace data2vec_audio_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return wav2vec2::build(in, b,
                         {.prefix = "data2vec_audio", .positional = wav2vec2::PositionalConv::Stacked,
                          .every_conv_normed = true, .stable_option = false});
}
}  // namespace
}  // namespace data2vec_audio_impl

const Family& data2vec_audio_family() {
  static const Family family{"data2vec-audio", "models/data2vec/modeling_data2vec_audio.py",
                             classes("Data2VecAudio", heads::kSpeech), data2vec_audio_impl::build};
  return family;
}

}  // namespace neurarch::families
