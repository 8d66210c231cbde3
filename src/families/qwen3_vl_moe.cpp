// Qwen3-VL-MoE (models/qwen3_vl_moe/modeling_qwen3_vl_moe.py + configuration_qwen3_vl_moe.py, transformers
// 5.24.0): Qwen3-VL (qwen3_vl_common) whose text model swaps the dense MLP for Qwen3-MoE's sparse one
// (qwen3_vl::moe_text_spec: Qwen3VLMoeTextConfig's defaults, experts fused as transformers 5 stores them).
#include "families/qwen3_vl_common.hpp"

namespace neurarch::families {
namespace qwen3_vl_moe_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  return qwen3_vl::build(in, b, qwen3_vl::moe_text_spec(in.config.child("text_config")), "Qwen3VLMoeTextModel");
}

}  // namespace
}  // namespace qwen3_vl_moe_impl

const Family& qwen3_vl_moe_family() {
  static const Family family{"qwen3_vl_moe", "models/qwen3_vl_moe/modeling_qwen3_vl_moe.py",
                             {{"Qwen3VLMoeModel", Head::Base},
                              {"Qwen3VLMoeForConditionalGeneration", Head::CausalLM}},
                             qwen3_vl_moe_impl::build};
  return family;
}

}  // namespace neurarch::families
