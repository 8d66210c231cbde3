#pragma once
// GIT's vision tower defaults (models/git/configuration_git.py, transformers 4.47.1), shared by GitModel and
// GitVisionModel: GitVisionConfig is CLIP's ViT-B with 16-pixel patches; the tower is CLIP's layout with its
// post_layernorm over the whole sequence (clip::clip_layout_vision_tower).
#include "families/clip_common.hpp"

namespace neurarch::families::git {

inline constexpr clip::NavitDefaults kVisionDefaults{.patch = 16};

}  // namespace neurarch::families::git
