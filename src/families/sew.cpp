// SEW (models/sew/modeling_sew.py + configuration_sew.py, transformers 4.47.1): wav2vec2's feature
// encoder (13 convs by default), a top-level LayerNorm and a projection only when conv_dim[-1] !=
// hidden_size; the encoder squeezes the frames by squeeze_factor (average pool + a positional conv
// strided by it), runs post-norm layers on the shorter sequence, and upsamples back (Linear to
// squeeze_factor x hidden, unfolded, zero-padded to the input frames). Raw 16 kHz audio; --seq sets
// the samples (default 16000 = 1 s).
#include "families/wav2vec2_common.hpp"

namespace neurarch::families {
namespace sew_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return wav2vec2::build(in, b,
                         {.prefix = "sew", .encoder = wav2vec2::Encoder::Squeezed, .stable_option = false,
                          .conv_defaults = &wav2vec2::squeezed_conv_stack()});
}
}  // namespace
}  // namespace sew_impl

const Family& sew_family() {
  static const Family family{"sew", "models/sew/modeling_sew.py", classes("SEW", heads::kSpeech), sew_impl::build};
  return family;
}

}  // namespace neurarch::families
