// SigLIP (models/siglip/modeling_siglip.py, transformers 4.47.1): a bidirectional text transformer whose
// last token goes through `head`, and a class-token-free ViT pooled by an attention probe; a sigmoid loss
// over logit_scale.exp() * cosine + logit_bias (both shape [1]). SiglipForImageClassification keeps only the
// vision tower (its probe head included) and classifies the mean of the post-layernormed sequence.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;
using clip::Variant;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config text_config = clip::sub_config(c, "text_config");
  const Config vision_config = clip::sub_config(c, "vision_config");
  if (in.head == Head::ImageClassification) {
    auto v = clip::vision_tower(in, b, vision_config, Variant::Siglip, Scope("vision_model"));
    return classifier(b, Value{v.sequence.node, {v.hidden}}, "Classifier", Scope("classifier"), v.hidden,
                      in.num_labels(), true);
  }
  Value text_embeds, image_embeds;
  {
    graph::Nested nest(b, {.module = "", .label = "Text_", .first_block = 0});
    text_embeds = clip::text_tower(in, b, text_config, Variant::Siglip, Scope("text_model")).pooled;
  }
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
    image_embeds = clip::vision_tower(in, b, vision_config, Variant::Siglip, Scope("vision_model")).pooled;
  }
  return clip::contrastive_logits(b, text_embeds, image_embeds, {1}, true);
}

}  // namespace

const Family& siglip_family() {
  static const Family family{"siglip", "models/siglip/modeling_siglip.py",
                             {{"SiglipModel", Head::Base}, {"SiglipForImageClassification", Head::ImageClassification}},
                             build};
  return family;
}

}  // namespace neurarch::families
