// X-CLIP's vision tower alone (models/x_clip/modeling_x_clip.py, transformers 5.24): XCLIPVisionModel is the
// cross-frame ViT (xclip_common.hpp); one sample is one clip of num_frames frames, whose
// post-layernormed class tokens are the pooler_output.
// Its modules sit at the root: transformers 5.x saves the tower without 4.x's `vision_model.` wrapper.
#include "families/xclip_common.hpp"

namespace neurarch::families {
namespace xclip_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  Value pooled;
  xclip::vision_tower(in, b, in.config, Scope(), xclip::vision_dims(in.config),
                      in.config.dim({"num_frames"}, 8), pooled);
  return pooled;
}

}  // namespace
}  // namespace xclip_vision_model_impl

const Family& xclip_vision_model_family() {
  static const Family family{"xclip_vision_model", "models/x_clip/modeling_x_clip.py", classes("XCLIPVision"),
                             xclip_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
