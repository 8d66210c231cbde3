// BLIP's vision tower alone (models/blip/modeling_blip.py, transformers 5.24): BlipVisionModel keeps its modules at
// the root (embeddings, encoder, post_layernorm); pooler_output is the class token, layernormed again.
#include "families/blip_common.hpp"

namespace neurarch::families {
namespace blip_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return blip::vision_tower(in, b, in.config, blip::kBlipVision, Scope()).pooled;
}

}  // namespace
}  // namespace blip_vision_model_impl

const Family& blip_vision_model_family() {
  static const Family family{"blip_vision_model", "models/blip/modeling_blip.py", classes("BlipVision"), blip_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
