// OwlViT's vision tower alone (models/owlvit/modeling_owlvit.py, transformers 5.24): OwlViTVisionModel is CLIP's vision
// transformer under `vision_model` with OwlViT's defaults (768-pixel images, 32-pixel patches, `pre_layernorm`); its
// pooler_output is the post-layernormed class token.
#include "families/owlvit_common.hpp"

namespace neurarch::families {
namespace owlvit_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::vision_tower(in, b, in.config, clip::Variant::Clip, Scope("vision_model"), 1, owlvit::kOwlvitDefaults)
      .pooled;
}

}  // namespace
}  // namespace owlvit_vision_model_impl

const Family& owlvit_vision_model_family() {
  static const Family family{"owlvit_vision_model", "models/owlvit/modeling_owlvit.py", classes("OwlViTVision"), owlvit_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
