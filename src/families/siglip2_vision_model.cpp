// SigLIP 2's vision tower alone (models/siglip2/modeling_siglip2.py, transformers 4.57.6): Siglip2VisionModel
// returns the attention-probe pooled output (vision_use_head, default true) over the post-layernormed
// patches of the NaFlex stem.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace siglip2_vision_model_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  return clip::vision_tower(in, b, in.config, clip::Variant::Siglip2, blocks::Scope("vision_model")).pooled;
}

}  // namespace
}  // namespace siglip2_vision_model_impl

const Family& siglip2_vision_model_family() {
  static const Family family{"siglip2_vision_model", "models/siglip2/modeling_siglip2.py",
                             classes("Siglip2Vision"), siglip2_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
