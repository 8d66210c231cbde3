// GroupViT's vision tower alone (models/groupvit/modeling_groupvit.py, transformers 5.24): GroupViTVisionModel is the
// grouping ViT under `vision_model` (groupvit_common.hpp); pooler_output is the mean of its layernormed last state.
#include "families/groupvit_common.hpp"

namespace neurarch::families {
namespace groupvit_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return groupvit::vision_tower(in, b, in.config, Scope("vision_model"));
}

}  // namespace
}  // namespace groupvit_vision_model_impl

const Family& groupvit_vision_model_family() {
  static const Family family{"groupvit_vision_model", "models/groupvit/modeling_groupvit.py",
                             classes("GroupViTVision"), groupvit_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
