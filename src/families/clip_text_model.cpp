// CLIP's text tower alone (models/clip/modeling_clip.py, transformers 4.47.1): CLIPTextModel returns the
// final-layernormed states (and the EOS token's as pooler_output); CLIPTextModelWithProjection adds the
// bias-free text_projection on that EOS token.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace clip_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  auto t = clip::text_tower(in, b, in.config, clip::Variant::Clip, Scope("text_model"));
  if (in.class_name != "CLIPTextModelWithProjection") return t.sequence;
  const std::int64_t projection = in.config.dim({"projection_dim"}, 512);
  auto out = b.node(graph::NodeType::Pooler, "Text_Projection", {projection}, {t.sequence}, Scope("text_projection"));
  linear_tensors(b, out, Scope("text_projection"), t.hidden, projection, false);
  return out;
}

}  // namespace
}  // namespace clip_text_model_impl

const Family& clip_text_model_family() {
  static const Family family{"clip_text_model", "models/clip/modeling_clip.py",
                             classes("CLIPText", {heads::ModelWithProjection}), clip_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
