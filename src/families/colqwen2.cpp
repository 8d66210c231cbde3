// ColQwen2 (models/colqwen2/modeling_colqwen2.py, transformers 4.57.6): colvision_common over a Qwen2-VL of
// vlm_config (Qwen2VLForConditionalGeneration in the 4.5x layout: `vlm.model.visual`,
// `vlm.model.language_model`, `vlm.lm_head`). The forward embeds the prompt, scatters the vision tower's merged
// patches into it and runs `vlm.model`'s decoder; lm_head is tied as the text config says (Qwen2-VL's default:
// untied, so stored though never run).
#include "families/colvision_common.hpp"
#include "families/qwen2_vl_common.hpp"

namespace neurarch::families {
namespace colqwen2_impl {
namespace {

blocks::Value qwen2_vl_model(const BuildInput& in, blocks::GraphBuilder& b, const Config& vlm) {
  return qwen2_vl::composite_model(in, b, vlm, qwen2_vl::Version::V2);
}

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  const Config vlm = colvision::vlm_config(in.config, "qwen2_vl", "ColQwen2");
  const bool tied = qwen2_vl::text_config_of(vlm).flag({"tie_word_embeddings"}, false);
  return colvision::retrieval(in, b, vlm, qwen2_vl_model, tied);
}

}  // namespace
}  // namespace colqwen2_impl

const Family& colqwen2_family() {
  static const Family family{"colqwen2", "models/colqwen2/modeling_colqwen2.py",
                             {{"ColQwen2ForRetrieval", Head::Base}}, colqwen2_impl::build};
  return family;
}

}  // namespace neurarch::families
