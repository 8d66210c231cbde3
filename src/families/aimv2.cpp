// AIMv2 (models/aimv2/modeling_aimv2.py, transformers 4.57.6): Aimv2Model pairs the AIMv2 vision encoder
// (vision_model, pooled by its attention probe) with a causal text encoder of the same layer design
// (text_model, pooled at the EOS token); both are projected without bias to projection_dim and compared by
// CLIP's scaled cosine similarity, logit_scale a 0-d parameter clamped to log(max_logit_scale) in forward.
#include "families/aimv2_common.hpp"
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace aimv2_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config text_config = in.config.child("text_config");
  const Config vision_config = in.config.child("vision_config");
  const std::int64_t projection = in.config.dim({"projection_dim"}, 512);
  Value text_embeds, image_embeds;
  // forward(input_ids, pixel_values): the token sequence is the first input.
  {
    graph::Nested nest(b, {.module = "", .label = "Text_", .first_block = 0});
    auto t = aimv2::text_tower(in, b, text_config, Scope("text_model"));
    text_embeds = b.node(graph::NodeType::Pooler, "Projection", {projection}, {t.sequence}, Scope("text_projection"));
    linear_tensors(b, text_embeds, Scope("text_projection"), t.hidden, projection, false);
  }
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
    auto v = aimv2::vision_tower(in, b, vision_config, Scope("vision_model"));
    if (v.pooled.shape.size() != 1)
      b.fail(v.pooled, "use_head=False leaves pooler_output None, which Aimv2Model projects");
    image_embeds = dense(b, Value{v.pooled.node, {v.hidden}}, "Projection", Scope("visual_projection"), v.hidden,
                         projection, false);
  }
  return clip::contrastive_logits(b, text_embeds, image_embeds, {}, false);
}

}  // namespace
}  // namespace aimv2_impl

const Family& aimv2_family() {
  static const Family family{"aimv2", "models/aimv2/modeling_aimv2.py", classes("Aimv2"), aimv2_impl::build};
  return family;
}

}  // namespace neurarch::families
