// InstructBlipVideoVisionModel alone (models/instructblipvideo/modeling_instructblipvideo.py, transformers 5.24):
// BLIP-2's vision tower (blip_common.hpp) with its modules at the root (embeddings, encoder, post_layernorm) and
// BLIP-2's defaults (1408 wide, 39 layers, 14-pixel patches at 224, q and v biases); pooler_output is the class token,
// layernormed again. InstructBLIP-Video's copy of InstructBLIP's; built alone, one sample is one frame.
#include "families/blip_common.hpp"

namespace neurarch::families {
namespace instructblipvideo_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return blip::vision_tower(in, b, in.config, blip::kBlip2Vision, Scope()).pooled;
}

}  // namespace
}  // namespace instructblipvideo_vision_model_impl

const Family& instructblipvideo_vision_model_family() {
  static const Family family{"instructblipvideo_vision_model", "models/instructblipvideo/modeling_instructblipvideo.py",
                             classes("InstructBlipVideoVision"), instructblipvideo_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
