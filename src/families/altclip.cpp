// AltCLIP (models/altclip/modeling_altclip.py, transformers 4.47.1): CLIP's vision tower beside an XLM-R text
// encoder (AltRobertaSeriesModel). The RoBERTa trunk sits under text_model.roberta without its pooler; every
// token's last state is layer-normed (pre_LN) and mapped to project_dim (transformation, with bias), and the
// first token of that is the text embedding, projected without bias to projection_dim (text_projection).
// Positions are numbered from pad_token_id + 1, as in RoBERTa.
#include "families/altclip_common.hpp"
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace altclip_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config text_config = in.config.child("text_config");
  const Config vision_config = in.config.child("vision_config");
  const std::int64_t projection = in.config.dim({"projection_dim"}, 768);
  Value text_embeds, image_embeds;
  {
    graph::Nested nest(b, {.module = "text_model", .label = "Text_", .first_block = 0});
    const BuildInput text{text_config, "AltRobertaSeriesModel", Head::Base, in.requested_seq,
                          in.requested_image_size};
    text_embeds = altclip::text_tower(text, b);
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
}  // namespace altclip_impl

const Family& altclip_family() {
  static const Family family{"altclip", "models/altclip/modeling_altclip.py", classes("AltCLIP"), altclip_impl::build};
  return family;
}

}  // namespace neurarch::families
