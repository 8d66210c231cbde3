// MetaCLIP 2's text tower alone (models/metaclip_2/modeling_metaclip_2.py, transformers 5.24): CLIP's text tower
// under its own class names and CLIP's defaults. MetaClip2TextModelWithProjection adds the bias-free
// text_projection on the pooled EOS token.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace metaclip_2_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  // 5.x saves the base class without 4.x's `text_model.` wrapper; the projection class keeps it.
  const bool projected = in.class_name == "MetaClip2TextModelWithProjection";
  const Scope root = projected ? Scope("text_model") : Scope();
  auto t = clip::text_tower(in, b, in.config, clip::Variant::Clip, root);
  if (!projected) return t.pooled;
  const std::int64_t projection = in.config.dim({"projection_dim"}, 512);
  auto out = b.node(graph::NodeType::Pooler, "Text_Projection", {projection}, {t.sequence}, Scope("text_projection"));
  linear_tensors(b, out, Scope("text_projection"), t.hidden, projection, false);
  return out;
}

}  // namespace
}  // namespace metaclip_2_text_model_impl

const Family& metaclip_2_text_model_family() {
  static const Family family{"metaclip_2_text_model", "models/metaclip_2/modeling_metaclip_2.py",
                             classes("MetaClip2Text", {heads::ModelWithProjection}), metaclip_2_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
