// Janus's image-understanding tower on its own (JanusVisionModel in models/janus/modeling_janus.py, transformers
// 5.24.0): janus_common's SigLIP-style vision transformer at the top level, ending in the post-LayerNormed patches;
// JanusVisionConfig's defaults.
#include "families/janus_common.hpp"

namespace neurarch::families {
namespace janus_vision_model_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return janus::vision_model(in, b, in.config);
}

}  // namespace
}  // namespace janus_vision_model_impl

const Family& janus_vision_model_family() {
  static const Family family{"janus_vision_model", "models/janus/modeling_janus.py",
                             {{"JanusVisionModel", Head::Base}}, janus_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
