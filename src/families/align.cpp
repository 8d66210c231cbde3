// ALIGN (models/align/modeling_align.py, transformers 4.47.1): an EfficientNet image tower (EfficientNet-B7 by
// default) whose encoder stops after its last MBConv block (no top conv), pooled over space into the image embedding
// as is (640 channels by default, no visual projection), and a BERT text encoder with its tanh pooler whose
// [CLS] state goes through text_projection (with bias) to projection_dim. The logits are the cosine similarities
// divided by a learned 0-d temperature, so the two widths must agree.
#include <fmt/format.h>

#include "families/align_common.hpp"
#include "families/clip_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace align_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config text_config = in.config.child("text_config");
  const Config vision_config = in.config.child("vision_config");
  const std::int64_t projection = in.config.dim({"projection_dim"}, 640);
  // AlignTextModel keeps its pooler though ALIGN never reads it.
  const bert::Layout& layout = align::kTextLayout;
  Value text_embeds, image_embeds;
  {
    graph::Nested nest(b, {.module = "text_model", .label = "Text_", .first_block = 0});
    const BuildInput text{text_config, "AlignTextModel", Head::Base, in.requested_seq, in.requested_image_size};
    auto t = bert::trunk(text, b, layout);
    bert::pooler(text, b, layout, t);
    text_embeds = vit::first_token(t.x);
  }
  text_embeds = dense(b, text_embeds, "Text_Projection", Scope("text_projection"), text_embeds.shape.back(),
                      projection, true);
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
    image_embeds = align::vision_tower(in, b, vision_config, Scope("vision_model")).pooled;
  }
  // ALIGN divides by `temperature` rather than multiplying by exp(logit_scale).
  return clip::contrastive_logits(b, text_embeds, image_embeds, {}, false, "temperature");
}

}  // namespace
}  // namespace align_impl

const Family& align_family() {
  static const Family family{"align", "models/align/modeling_align.py", classes("Align"), align_impl::build};
  return family;
}

}  // namespace neurarch::families
