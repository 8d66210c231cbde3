// GroupViT's text tower alone (models/groupvit/modeling_groupvit.py, transformers 5.24): GroupViTTextModel is CLIP's
// causal text layout under `text_model` with GroupViT's defaults (groupvit_common.hpp); pooler_output is the EOS
// token's state.
#include "families/groupvit_common.hpp"

namespace neurarch::families {
namespace groupvit_text_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return groupvit::text_tower(in, b, in.config, Scope("text_model"));
}

}  // namespace
}  // namespace groupvit_text_model_impl

const Family& groupvit_text_model_family() {
  static const Family family{"groupvit_text_model", "models/groupvit/modeling_groupvit.py", classes("GroupViTText"),
                             groupvit_text_model_impl::build};
  return family;
}

}  // namespace neurarch::families
