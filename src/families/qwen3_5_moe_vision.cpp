// Qwen3.5-MoE's vision tower on its own (Qwen3_5MoeVisionModel in models/qwen3_5_moe/modeling_qwen3_5_moe.py,
// transformers 5.24.0): Qwen3.5's (qwen3_vl_common without the DeepStack mergers).
#include "families/qwen3_vl_common.hpp"

namespace neurarch::families {
namespace qwen3_5_moe_vision_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return qwen3_vl::vision_model(in, b, in.config, false);
}

}  // namespace
}  // namespace qwen3_5_moe_vision_impl

const Family& qwen3_5_moe_vision_family() {
  static const Family family{"qwen3_5_moe_vision", "models/qwen3_5_moe/modeling_qwen3_5_moe.py",
                             {{"Qwen3_5MoeVisionModel", Head::Base}}, qwen3_5_moe_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
