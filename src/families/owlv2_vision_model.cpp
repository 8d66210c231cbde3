// Owlv2's vision tower alone (models/owlv2/modeling_owlv2.py, transformers 5.24): Owlv2VisionModel is CLIP's vision
// transformer under `vision_model` with Owlv2's defaults (768-pixel images, 16-pixel patches, `pre_layernorm`); its
// pooler_output is the post-layernormed class token.
#include "families/owlvit_common.hpp"

namespace neurarch::families {
namespace owlv2_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::vision_tower(in, b, in.config, clip::Variant::Clip, Scope("vision_model"), 1, owlvit::kOwlv2Defaults)
      .pooled;
}

}  // namespace
}  // namespace owlv2_vision_model_impl

const Family& owlv2_vision_model_family() {
  static const Family family{"owlv2_vision_model", "models/owlv2/modeling_owlv2.py", classes("Owlv2Vision"), owlv2_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
