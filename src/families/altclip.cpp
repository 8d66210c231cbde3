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
  return clip::with_text_tower(in, b, 768, [&] {
    const BuildInput text{text_config, "AltRobertaSeriesModel", Head::Base, in.requested_seq, in.requested_image_size};
    return altclip::text_tower(text, b);
  });
}

}  // namespace
}  // namespace altclip_impl

const Family& altclip_family() {
  static const Family family{"altclip", "models/altclip/modeling_altclip.py", classes("AltCLIP"), altclip_impl::build};
  return family;
}

}  // namespace neurarch::families
