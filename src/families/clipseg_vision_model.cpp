// CLIPSeg's vision tower alone (models/clipseg/modeling_clipseg.py, transformers 5.24): CLIPSegVisionModel is
// CLIP's vision transformer with CLIP's defaults (`pre_layrnorm` included); its pooler_output
// is the post-layernormed class token.
// Its modules sit at the root: transformers 5.x saves the tower without 4.x's `vision_model.` wrapper.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace clipseg_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::vision_tower(in, b, in.config, clip::Variant::Clip, Scope()).pooled;
}

}  // namespace
}  // namespace clipseg_vision_model_impl

const Family& clipseg_vision_model_family() {
  static const Family family{"clipseg_vision_model", "models/clipseg/modeling_clipseg.py", classes("CLIPSegVision"),
                             clipseg_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
