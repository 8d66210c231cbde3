// SigLIP 2 (models/siglip2/modeling_siglip2.py + configuration_siglip2.py, transformers 4.57.6): SigLIP's
// two towers, sigmoid logits and image classifier, with the NaFlex vision stem (clip_common.hpp): patches
// of any image arrive flattened ([max_num_patches, channels * patch^2]), go through an nn.Linear, and the
// num_patches-row position table is resized to the image's patch grid. The text tower is SigLIP's.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace siglip2_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  return clip::siglip_model(in, b, clip::Variant::Siglip2);
}

}  // namespace
}  // namespace siglip2_impl

const Family& siglip2_family() {
  static const Family family{"siglip2", "models/siglip2/modeling_siglip2.py",
                             classes("Siglip2", {heads::ForImageClassification}), siglip2_impl::build};
  return family;
}

}  // namespace neurarch::families
