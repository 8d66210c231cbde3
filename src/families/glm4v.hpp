#pragma once
// GLM-4.1V's composite model (glm4v.cpp), which GLM-4.5V (glm4v_moe.cpp) repeats with a mixture-of-experts decoder.
#include "families/multimodal_common.hpp"

namespace neurarch::families::glm4v {

/// Glm4vModel (in.head Base) or Glm4vForConditionalGeneration: the vision transformer under `visual`, `lm` built
/// from text_config as the base model under `language_model`, and for the head class `model.` around both plus
/// `lm_head` (tied as text_config says).
blocks::Value conditional_generation(const BuildInput& in, blocks::GraphBuilder& b,
                                     const multimodal::LanguageModel& lm);

}  // namespace neurarch::families::glm4v
