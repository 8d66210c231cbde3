// OWLv2 (models/owlv2/modeling_owlv2.py, transformers 4.47.1): a copy of OWL-ViT whose base model Owlv2Model has the
// same towers and names; only the vision default patch differs (768-pixel images in 16-pixel patches).
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::clip_model(in, b, {.image_size = 768, .patch = 16, .text_positions = 16, .pre_norm = "pre_layernorm"});
}

}  // namespace

const Family& owlv2_family() {
  static const Family family{"owlv2", "models/owlv2/modeling_owlv2.py", {{"Owlv2Model", Head::Base}}, build};
  return family;
}

}  // namespace neurarch::families
