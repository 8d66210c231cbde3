// Qwen3.5's vision tower on its own (Qwen3_5VisionModel in models/qwen3_5/modeling_qwen3_5.py, transformers 5.24.0):
// Qwen3-VL's (qwen3_vl_common) without the DeepStack mergers, which Qwen3_5VisionModel deletes whatever
// deepstack_visual_indexes says; Qwen3_5VisionConfig has Qwen3VLVisionConfig's defaults.
#include "families/qwen3_vl_common.hpp"

namespace neurarch::families {
namespace qwen3_5_vision_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return qwen3_vl::vision_model(in, b, in.config, false);
}

}  // namespace
}  // namespace qwen3_5_vision_impl

const Family& qwen3_5_vision_family() {
  static const Family family{"qwen3_5_vision", "models/qwen3_5/modeling_qwen3_5.py",
                             {{"Qwen3_5VisionModel", Head::Base}}, qwen3_5_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
