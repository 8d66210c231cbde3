// SigLIP's text tower alone (models/siglip/modeling_siglip.py, transformers 5.24): SiglipTextModel is the
// bidirectional text transformer; its pooler_output is the last token through `head`.
// Its modules sit at the root: transformers 5.x saves the tower without 4.x's `text_model.` wrapper.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace siglip_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::text_tower(in, b, in.config, clip::Variant::Siglip, Scope()).pooled;
}

}  // namespace
}  // namespace siglip_text_model_impl

const Family& siglip_text_model_family() {
  static const Family family{"siglip_text_model", "models/siglip/modeling_siglip.py", classes("SiglipText"), siglip_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
