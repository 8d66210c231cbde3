// OWLv2 (models/owlv2/modeling_owlv2.py, transformers 4.47.1): a copy of OWL-ViT whose base model Owlv2Model has the
// same towers and names; only the vision default patch differs (768-pixel images in 16-pixel patches).
#include "families/owlvit_common.hpp"

namespace neurarch::families {
namespace owlv2_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const clip::ClipDefaults& defaults = owlvit::kOwlv2Defaults;
  // The detector is registered under Head::PreTraining, as DETR's is: the Head list has no detection entry.
  if (in.head == Head::PreTraining) return owlvit::detector(in, b, defaults, true);
  return clip::clip_model(in, b, defaults);
}

}  // namespace
}  // namespace owlv2_impl

const Family& owlv2_family() {
  static const Family family{"owlv2", "models/owlv2/modeling_owlv2.py",
                             classes("Owlv2", {heads::ForObjectDetection}), owlv2_impl::build};
  return family;
}

}  // namespace neurarch::families
