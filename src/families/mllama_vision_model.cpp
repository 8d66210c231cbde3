// Llama 3.2 Vision's image encoder on its own (MllamaVisionModel in models/mllama/modeling_mllama.py, transformers
// 5.24.0): mllama_common's tiled vision transformer at the top level, ending in the last state side by side with the
// intermediate_layers_indices states (vision_output_dim wide); MllamaVisionConfig's defaults.
#include <fmt/format.h>

#include "families/mllama_common.hpp"

namespace neurarch::families {
namespace mllama_vision_model_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const mllama::VisionOut v = mllama::vision(in, b, in.config);
  b.note(fmt::format("one image in {} tiles: {} vision tokens; --image-size sets the tile's side", v.tiles, v.tokens));
  return v.states;
}

}  // namespace
}  // namespace mllama_vision_model_impl

const Family& mllama_vision_model_family() {
  static const Family family{"mllama_vision_model", "models/mllama/modeling_mllama.py",
                             {{"MllamaVisionModel", Head::Base}}, mllama_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
