// Owlv2's text tower alone (models/owlv2/modeling_owlv2.py, transformers 5.24): Owlv2TextModel is CLIP's causal text
// transformer under `text_model` with Owlv2's defaults (16 positions); pooler_output is the EOS token's state.
#include "families/owlvit_common.hpp"

namespace neurarch::families {
namespace owlv2_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::text_tower(in, b, in.config, clip::Variant::Clip, Scope("text_model"), owlvit::kOwlv2Defaults).pooled;
}

}  // namespace
}  // namespace owlv2_text_model_impl

const Family& owlv2_text_model_family() {
  static const Family family{"owlv2_text_model", "models/owlv2/modeling_owlv2.py", classes("Owlv2Text"), owlv2_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
