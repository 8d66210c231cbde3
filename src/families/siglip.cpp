// SigLIP (models/siglip/modeling_siglip.py, transformers 4.47.1): a bidirectional text transformer whose
// last token goes through `head`, and a class-token-free ViT pooled by an attention probe; a sigmoid loss
// over logit_scale.exp() * cosine + logit_bias (both shape [1]). SiglipForImageClassification keeps only the
// vision tower (its probe head included) and classifies the mean of the post-layernormed sequence.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace siglip_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  return clip::siglip_model(in, b, clip::Variant::Siglip);
}

}  // namespace
}  // namespace siglip_impl

const Family& siglip_family() {
  static const Family family{"siglip", "models/siglip/modeling_siglip.py",
                             classes("Siglip", {heads::ForImageClassification}), siglip_impl::build};
  return family;
}

}  // namespace neurarch::families
