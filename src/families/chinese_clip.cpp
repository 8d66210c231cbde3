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
  // ChineseCLIPTextConfig's defaults are BERT-base's.
  static const bert::Layout layout{.prefix = "", .defaults = {}, .pooler = bert::PoolerUse::Never};
  return clip::with_text_tower(in, b, 512, [&] {
    const BuildInput text{text_config, "ChineseCLIPTextModel", Head::Base, in.requested_seq, in.requested_image_size};
    return vit::first_token(bert::trunk(text, b, layout).x);
  });
}

}  // namespace
}  // namespace chinese_clip_impl

const Family& chinese_clip_family() {
  static const Family family{"chinese_clip", "models/chinese_clip/modeling_chinese_clip.py",
                             classes("ChineseCLIP"), chinese_clip_impl::build};
  return family;
}

}  // namespace neurarch::families
