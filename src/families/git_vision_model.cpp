// GIT's vision tower alone (models/git/modeling_git.py, transformers 5.24): GitVisionModel is CLIP's vision layout
// under `vision_model` with GitVisionConfig's defaults (git_common.hpp); its output is the post-layernormed
// sequence (there is no pooler).
#include "families/git_common.hpp"

namespace neurarch::families {
namespace git_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return clip::clip_layout_vision_tower(in, b, in.config, Scope("vision_model"), git::kVisionDefaults).sequence;
}

}  // namespace
}  // namespace git_vision_model_impl

const Family& git_vision_model_family() {
  static const Family family{"git_vision_model", "models/git/modeling_git.py", classes("GitVision"), git_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
