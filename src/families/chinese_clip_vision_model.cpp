// Chinese-CLIP's vision tower alone (models/chinese_clip/modeling_chinese_clip.py, transformers 4.47.1):
// ChineseCLIPVisionModel is CLIP's vision transformer under `vision_model` with CLIP's vision defaults; its
// pooler_output is the post-layernormed class token. There is no with-projection class.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace chinese_clip_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::vision_tower(in, b, in.config, clip::Variant::Clip, Scope("vision_model")).pooled;
}

}  // namespace
}  // namespace chinese_clip_vision_model_impl

const Family& chinese_clip_vision_model_family() {
  static const Family family{"chinese_clip_vision_model", "models/chinese_clip/modeling_chinese_clip.py",
                             classes("ChineseCLIPVision"), chinese_clip_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
