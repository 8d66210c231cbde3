#pragma once
// PaliGemma's parts (paligemma.cpp), which ColPali wraps as its `vlm`.
#include "families/family.hpp"

namespace neurarch::families::paligemma {

/// PaliGemmaModel of config `c` under the current nest as transformers 4.5x lays it out (vision_tower,
/// multi_modal_projector, language_model: text_config's base model); returns the last hidden state.
blocks::Value base_model(const BuildInput& in, blocks::GraphBuilder& b, const Config& c);

}  // namespace neurarch::families::paligemma
