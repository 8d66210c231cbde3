// Qwen3-VL's vision tower on its own (Qwen3VLVisionModel in models/qwen3_vl/modeling_qwen3_vl.py, transformers
// 5.24.0): qwen3_vl_common's vision transformer, PatchMerger and DeepStack mergers at the top level, ending in the
// merged image features; Qwen3VLVisionConfig's defaults.
#include "families/qwen3_vl_common.hpp"

namespace neurarch::families {
namespace qwen3_vl_vision_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return qwen3_vl::vision_model(in, b, in.config, true);
}

}  // namespace
}  // namespace qwen3_vl_vision_impl

const Family& qwen3_vl_vision_family() {
  static const Family family{"qwen3_vl_vision", "models/qwen3_vl/modeling_qwen3_vl.py",
                             {{"Qwen3VLVisionModel", Head::Base}}, qwen3_vl_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
