// MetaCLIP 2's vision tower alone (models/metaclip_2/modeling_metaclip_2.py, transformers 5.24): CLIP's vision
// tower under its own class names and CLIP's defaults; MetaClip2VisionModelWithProjection adds the bias-free
// visual_projection on the post-layernormed class token.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace metaclip_2_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  // 5.x saves the base class without 4.x's `vision_model.` wrapper; the projection class keeps it.
  const bool projected = in.class_name == "MetaClip2VisionModelWithProjection";
  const Scope root = projected ? Scope("vision_model") : Scope();
  auto v = clip::vision_tower(in, b, in.config, clip::Variant::Clip, root);
  if (!projected) return v.pooled;
  const std::int64_t projection = in.config.dim({"projection_dim"}, 512);
  return dense(b, v.pooled, "Visual_Projection", Scope("visual_projection"), v.hidden, projection, false);
}

}  // namespace
}  // namespace metaclip_2_vision_model_impl

const Family& metaclip_2_vision_model_family() {
  static const Family family{"metaclip_2_vision_model", "models/metaclip_2/modeling_metaclip_2.py",
                             classes("MetaClip2Vision", {heads::ModelWithProjection}), metaclip_2_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
