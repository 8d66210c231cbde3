// Chinese-CLIP (models/chinese_clip/modeling_chinese_clip.py, transformers 4.47.1): CLIP's vision tower (class
// token, bias-free patch conv, pre_layrnorm, post-layernormed CLS) beside a BERT text encoder built without its
// pooler (ChineseCLIPTextModel(add_pooling_layer=False)). The text embedding is the [CLS] state of the last layer,
// projected without bias to projection_dim; both projections feed CLIP's scaled cosine logits (0-d logit_scale).
#include "families/bert_common.hpp"
#include "families/clip_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace chinese_clip_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config text_config = in.config.child("text_config");
  const Config vision_config = in.config.child("vision_config");
  const std::int64_t projection = in.config.dim({"projection_dim"}, 512);
  // ChineseCLIPTextConfig's defaults are BERT-base's.
  static const bert::Layout layout{.prefix = "", .defaults = {}, .pooler = bert::PoolerUse::Never};
  Value text_embeds, image_embeds;
  {
    graph::Nested nest(b, {.module = "text_model", .label = "Text_", .first_block = 0});
    const BuildInput text{text_config, "ChineseCLIPTextModel", Head::Base, in.requested_seq, in.requested_image_size};
    auto t = bert::trunk(text, b, layout);
    text_embeds = vit::first_token(t.x);
  }
  text_embeds = dense(b, text_embeds, "Text_Projection", Scope("text_projection"), text_embeds.shape.back(),
                      projection, false);
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
    auto v = clip::vision_tower(in, b, vision_config, clip::Variant::Clip, Scope("vision_model"));
    image_embeds = dense(b, v.pooled, "Visual_Projection", Scope("visual_projection"), v.hidden, projection, false);
  }
  return clip::contrastive_logits(b, text_embeds, image_embeds, {}, false);
}

}  // namespace
}  // namespace chinese_clip_impl

const Family& chinese_clip_family() {
  static const Family family{"chinese_clip", "models/chinese_clip/modeling_chinese_clip.py",
                             classes("ChineseCLIP"), chinese_clip_impl::build};
  return family;
}

}  // namespace neurarch::families
