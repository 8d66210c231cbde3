// Llama 4's vision model on its own (Llama4VisionModel in models/llama4/modeling_llama4.py, transformers 5.24.0):
// llama4_common's tower at the top level, ending in the vision adapter's image tokens; Llama4VisionConfig's
// defaults (not self-consistent: its tensors are exact, its forward pass is refused where the reference's fails).
#include "families/llama4_common.hpp"

namespace neurarch::families {
namespace llama4_vision_model_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return llama4::vision_model(in, b, in.config);
}

}  // namespace
}  // namespace llama4_vision_model_impl

const Family& llama4_vision_model_family() {
  static const Family family{"llama4_vision_model", "models/llama4/modeling_llama4.py",
                             {{"Llama4VisionModel", Head::Base}}, llama4_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
