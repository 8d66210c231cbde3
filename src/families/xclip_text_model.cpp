// X-CLIP's text tower alone (models/x_clip/modeling_x_clip.py, transformers 5.24): XCLIPTextModel is CLIP's causal
// text transformer with CLIP's defaults; pooler_output is the EOS token's state.
// Its modules sit at the root: transformers 5.x saves the tower without 4.x's `text_model.` wrapper.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace xclip_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::text_tower(in, b, in.config, clip::Variant::Clip, Scope()).pooled;
}

}  // namespace
}  // namespace xclip_text_model_impl

const Family& xclip_text_model_family() {
  static const Family family{"xclip_text_model", "models/x_clip/modeling_x_clip.py", classes("XCLIPText"), xclip_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
