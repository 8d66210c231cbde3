// AltCLIP (models/altclip/modeling_altclip.py, transformers 4.47.1): CLIP's vision tower beside an XLM-R text
// encoder (AltRobertaSeriesModel). The RoBERTa trunk sits under text_model.roberta without its pooler; every
// token's last state is layer-normed (pre_LN) and mapped to project_dim (transformation, with bias), and the
// first token of that is the text embedding, projected without bias to projection_dim (text_projection).
// Positions are numbered from pad_token_id + 1, as in RoBERTa.
#include "families/bert_common.hpp"
#include "families/clip_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config text_config = in.config.child("text_config");
  const Config vision_config = in.config.child("vision_config");
  const std::int64_t projection = in.config.dim({"projection_dim"}, 768);
  // AltCLIPTextConfig's defaults are XLM-R large's, with one token type.
  static const bert::Layout layout{.prefix = "roberta",
                                   .always_prefixed = true,
                                   .defaults = {.vocab = 250002, .hidden = 1024, .layers = 24, .heads = 16,
                                                .intermediate = 4096, .max_positions = 514, .type_vocab = 1, .pad = 1},
                                   .heads = bert::HeadStyle::Roberta,
                                   .pooler = bert::PoolerUse::Never,
                                   .roberta_positions = true};
  Value text_embeds, image_embeds;
  {
    graph::Nested nest(b, {.module = "text_model", .label = "Text_", .first_block = 0});
    const BuildInput text{text_config, "AltRobertaSeriesModel", Head::Base, in.requested_seq,
                          in.requested_image_size};
    auto t = bert::trunk(text, b, layout);
    const std::int64_t project_dim = text_config.dim({"project_dim"}, 768);
    auto x = norm(b, t.x, "Pre_LN", {Scope("pre_LN")});
    x = dense(b, x, "Transformation", Scope("transformation"), t.hidden, project_dim, true);
    text_embeds = vit::first_token(x);
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

const Family& altclip_family() {
  static const Family family{"altclip", "models/altclip/modeling_altclip.py", classes("AltCLIP"), build};
  return family;
}

}  // namespace neurarch::families
