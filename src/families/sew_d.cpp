// SEW-D (models/sew_d/modeling_sew_d.py + configuration_sew_d.py, transformers 4.47.1): SEW's
// feature encoder, LayerNorm, optional projection, squeeze (average pool + strided positional conv)
// and upsampling, around DeBERTa-v2's encoder (deberta_common) at encoder.encoder: disentangled
// attention over a shared relative table (position_buckets x 2 rows, LayerNorm with norm_rel_ebd),
// post-norm layers. Raw 16 kHz audio; --seq sets the samples (default 16000 = 1 s).
#include "families/wav2vec2_common.hpp"

namespace neurarch::families {
namespace sew_d_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return wav2vec2::build(in, b,
                         {.prefix = "sew_d", .encoder = wav2vec2::Encoder::SqueezedDeberta, .stable_option = false,
                          .conv_defaults = &wav2vec2::squeezed_conv_stack()});
}
}  // namespace
}  // namespace sew_d_impl

const Family& sew_d_family() {
  static const Family family{"sew-d", "models/sew_d/modeling_sew_d.py", classes("SEWD", heads::kSpeech), sew_d_impl::build};
  return family;
}

}  // namespace neurarch::families
