#pragma once
// Idefics3VisionConfig's defaults, shared by the tower alone and the whole Idefics 3 / SmolVLM model.
#include "families/clip_common.hpp"

namespace neurarch::families {

/// 1152 wide, 16 heads, 12 layers, 32-px patches, 224 px (SmolVLMVisionConfig has the same).
const clip::NavitDefaults& idefics3_vision_defaults();

}  // namespace neurarch::families
