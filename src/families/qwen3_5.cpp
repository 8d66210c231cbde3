// Qwen3.5 (models/qwen3_5/modeling_qwen3_5.py + configuration_qwen3_5.py, transformers 5.24.0): a
// vision-language model as the published Qwen3.5 checkpoints are. Qwen3-VL's vision tower (qwen3_vl_common)
// without its DeepStack mergers (Qwen3_5VisionModel deletes them) under `model.visual`, and Qwen3.5's hybrid
// text model (qwen3_5_text) as `model.language_model`; `lm_head` at the top, tied as the composite config's
// tie_word_embeddings says (default false).
#include "families/qwen3_5.hpp"
#include "families/qwen3_vl_common.hpp"

namespace neurarch::families {
namespace qwen3_5_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  const Config text = in.config.child("text_config");
  return qwen3_vl::build(in, b, qwen3_5::text_spec(text), "Qwen3_5TextModel", false);
}

}  // namespace
}  // namespace qwen3_5_impl

const Family& qwen3_5_family() {
  static const Family family{"qwen3_5", "models/qwen3_5/modeling_qwen3_5.py",
                             {{"Qwen3_5Model", Head::Base}, {"Qwen3_5ForConditionalGeneration", Head::CausalLM}},
                             qwen3_5_impl::build};
  return family;
}

}  // namespace neurarch::families
