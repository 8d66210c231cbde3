// ColPali (models/colpali/modeling_colpali.py, transformers 4.57.6): colvision_common over a PaliGemma of
// vlm_config (PaliGemmaForConditionalGeneration in the 4.5x layout: `vlm.model.vision_tower`,
// `vlm.model.multi_modal_projector`, `vlm.model.language_model`, `vlm.lm_head`), whose lm_head is tied as its
// text config says (Gemma's default: tied, so not saved). The top-level text_config is a copy of the VLM's and
// builds nothing.
#include "families/colvision_common.hpp"
#include "families/paligemma.hpp"

namespace neurarch::families {
namespace colpali_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  const Config vlm = colvision::vlm_config(in.config, "paligemma", "ColPali");
  const bool tied = !vlm.has("text_config") || vlm.child("text_config").flag({"tie_word_embeddings"}, true);
  return colvision::retrieval(in, b, vlm, paligemma::base_model, tied);
}

}  // namespace
}  // namespace colpali_impl

const Family& colpali_family() {
  static const Family family{"colpali", "models/colpali/modeling_colpali.py",
                             {{"ColPaliForRetrieval", Head::Base}}, colpali_impl::build};
  return family;
}

}  // namespace neurarch::families
