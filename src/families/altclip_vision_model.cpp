// AltCLIP's vision tower alone (models/altclip/modeling_altclip.py, transformers 5.24): AltCLIPVisionModel is CLIP's
// vision transformer with CLIP's defaults; its pooler_output is the post-layernormed class
// token.
// Its modules sit at the root: transformers 5.x saves the tower without 4.x's `vision_model.` wrapper.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace altclip_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::vision_tower(in, b, in.config, clip::Variant::Clip, Scope()).pooled;
}

}  // namespace
}  // namespace altclip_vision_model_impl

const Family& altclip_vision_model_family() {
  static const Family family{"altclip_vision_model", "models/altclip/modeling_altclip.py", classes("AltCLIPVision"),
                             altclip_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
