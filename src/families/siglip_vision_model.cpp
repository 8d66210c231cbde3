// SigLIP's vision tower alone (models/siglip/modeling_siglip.py, transformers 4.47.1): SiglipVisionModel
// returns the attention-probe pooled output (vision_use_head, default true) over the post-layernormed patches.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace siglip_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::vision_tower(in, b, in.config, clip::Variant::Siglip, Scope("vision_model")).pooled;
}

}  // namespace
}  // namespace siglip_vision_model_impl

const Family& siglip_vision_model_family() {
  static const Family family{"siglip_vision_model", "models/siglip/modeling_siglip.py", classes("SiglipVision"), siglip_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
