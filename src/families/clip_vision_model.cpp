// CLIP's vision tower alone (models/clip/modeling_clip.py, transformers 4.47.1): CLIPVisionModel returns
// the post-layernormed class token as pooler_output; CLIPVisionModelWithProjection adds the bias-free
// visual_projection on it.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace clip_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  auto v = clip::vision_tower(in, b, in.config, clip::Variant::Clip, Scope("vision_model"));
  if (in.class_name != "CLIPVisionModelWithProjection") return v.pooled;
  const std::int64_t projection = in.config.dim({"projection_dim"}, 512);
  return dense(b, v.pooled, "Visual_Projection", Scope("visual_projection"), v.hidden, projection, false);
}

}  // namespace
}  // namespace clip_vision_model_impl

const Family& clip_vision_model_family() {
  static const Family family{"clip_vision_model", "models/clip/modeling_clip.py",
                             classes("CLIPVision", {heads::ModelWithProjection}), clip_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
