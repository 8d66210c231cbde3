// Qwen3.5-MoE (models/qwen3_5_moe/modeling_qwen3_5_moe.py + configuration_qwen3_5_moe.py, transformers 5.24.0):
// Qwen3.5's vision-language layout (qwen3_5.cpp: Qwen3-VL's tower without DeepStack under `model.visual`) around
// the Qwen3.5-MoE text model (qwen3_5_moe_text) as `model.language_model`; experts named per expert, as
// save_pretrained writes them.
#include "families/qwen3_5.hpp"
#include "families/qwen3_vl_common.hpp"

namespace neurarch::families {
namespace qwen3_5_moe_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  const Config text = in.config.child("text_config");
  return qwen3_vl::build(in, b, qwen3_5::moe_text_spec(text), "Qwen3_5MoeTextModel", false);
}

}  // namespace
}  // namespace qwen3_5_moe_impl

const Family& qwen3_5_moe_family() {
  static const Family family{"qwen3_5_moe", "models/qwen3_5_moe/modeling_qwen3_5_moe.py",
                             {{"Qwen3_5MoeModel", Head::Base},
                              {"Qwen3_5MoeForConditionalGeneration", Head::CausalLM}},
                             qwen3_5_moe_impl::build};
  return family;
}

}  // namespace neurarch::families
