// OwlViT's text tower alone (models/owlvit/modeling_owlvit.py, transformers 5.24): OwlViTTextModel is CLIP's causal
// text transformer under `text_model` with OwlViT's defaults (16 positions); pooler_output is the EOS token's state.
#include "families/owlvit_common.hpp"

namespace neurarch::families {
namespace owlvit_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::text_tower(in, b, in.config, clip::Variant::Clip, Scope("text_model"), owlvit::kOwlvitDefaults).pooled;
}

}  // namespace
}  // namespace owlvit_text_model_impl

const Family& owlvit_text_model_family() {
  static const Family family{"owlvit_text_model", "models/owlvit/modeling_owlvit.py", classes("OwlViTText"), owlvit_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
