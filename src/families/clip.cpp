// CLIP (models/clip/modeling_clip.py, transformers 4.47.1): a causal text transformer and a ViT with a
// class token, each projected (bias-free) to projection_dim and compared by a scaled cosine similarity;
// logit_scale is a 0-d parameter. text_config / vision_config fall back to the tower defaults when absent.
// CLIPForImageClassification keeps only the vision tower and classifies the mean of the patch tokens of
// last_hidden_state (the class token and the post-layernormed pooled output are left out).
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
    auto v = clip::vision_tower(in, b, vision_config, Variant::Clip, Scope("vision_model"));
    return classifier(b, Value{v.sequence.node, {v.hidden}}, "Classifier", Scope("classifier"), v.hidden,
                      in.num_labels(), true);
  }
  const std::int64_t projection = c.dim({"projection_dim"}, 512);
  Value text_embeds, image_embeds;
  {
    graph::Nested nest(b, {.module = "", .label = "Text_", .first_block = 0});
    auto t = clip::text_tower(in, b, text_config, Variant::Clip, Scope("text_model"));
    // The EOS token's state, projected: a one-token gather and a bias-free linear.
    text_embeds = b.node(graph::NodeType::Pooler, "Projection", {projection}, {t.sequence}, Scope("text_projection"));
    linear_tensors(b, text_embeds, Scope("text_projection"), t.hidden, projection, false);
  }
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
    auto v = clip::vision_tower(in, b, vision_config, Variant::Clip, Scope("vision_model"));
    image_embeds = dense(b, v.pooled, "Projection", Scope("visual_projection"), v.hidden, projection, false);
  }
  return clip::contrastive_logits(b, text_embeds, image_embeds, {}, false);
}

}  // namespace

const Family& clip_family() {
  static const Family family{"clip", "models/clip/modeling_clip.py",
                             {{"CLIPModel", Head::Base}, {"CLIPForImageClassification", Head::ImageClassification}},
                             build};
  return family;
}

}  // namespace neurarch::families
