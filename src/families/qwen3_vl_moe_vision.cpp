// Qwen3-VL-MoE's vision tower on its own (Qwen3VLMoeVisionModel in models/qwen3_vl_moe/modeling_qwen3_vl_moe.py,
// transformers 5.24.0): Qwen3-VL's (qwen3_vl_common, DeepStack mergers included); Qwen3VLMoeVisionConfig has
// Qwen3VLVisionConfig's defaults.
#include "families/qwen3_vl_common.hpp"

namespace neurarch::families {
namespace qwen3_vl_moe_vision_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return qwen3_vl::vision_model(in, b, in.config, true);
}

}  // namespace
}  // namespace qwen3_vl_moe_vision_impl

const Family& qwen3_vl_moe_vision_family() {
  static const Family family{"qwen3_vl_moe_vision", "models/qwen3_vl_moe/modeling_qwen3_vl_moe.py",
                             {{"Qwen3VLMoeVisionModel", Head::Base}}, qwen3_vl_moe_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
