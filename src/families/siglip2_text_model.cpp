// SigLIP 2's text tower alone (models/siglip2/modeling_siglip2.py, transformers 5.24): Siglip2TextModel is
// SigLIP's text transformer (only the vision stem changed in SigLIP 2), pooled through `head`.
// Its modules sit at the root: transformers 5.x saves the tower without 4.x's `text_model.` wrapper.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace siglip2_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::text_tower(in, b, in.config, clip::Variant::Siglip2, Scope()).pooled;
}

}  // namespace
}  // namespace siglip2_text_model_impl

const Family& siglip2_text_model_family() {
  static const Family family{"siglip2_text_model", "models/siglip2/modeling_siglip2.py", classes("Siglip2Text"),
                             siglip2_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
