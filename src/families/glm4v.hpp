#pragma once
// GLM-4.1V's composite model (glm4v.cpp), which GLM-4.5V (glm4v_moe.cpp) repeats with a mixture-of-experts decoder.
#include "families/multimodal_common.hpp"

namespace neurarch::families::glm4v {

/// The photo the vision transformer sees: square, its side rounded to a multiple of patch x merge.
struct Grid {
  std::int64_t photo = 0, side = 0, patches_per_side = 0, patches = 0, tokens = 0;
};

/// The vision transformer (Glm4vVisionModel) under the current nest: tensors `patch_embed.*`,
/// `post_conv_layernorm`, `embeddings.position_embedding`, `blocks.*`, `post_layernorm`, `downsample`, `merger.*`;
/// fills `grid` (--image-size, else image_size); returns the merged features [tokens, out_hidden_size].
blocks::Value vision(const BuildInput& in, blocks::GraphBuilder& b, const Config& vision_config, Grid& grid);

/// The vision transformer built alone from its own config (Glm4vVisionModel, GLM-4.5V's Glm4vMoeVisionModel):
/// `vision` at the top level with a note of the photo's grid.
blocks::Value vision_model(const BuildInput& in, blocks::GraphBuilder& b);

/// Glm4vModel (in.head Base) or Glm4vForConditionalGeneration: the vision transformer under `visual`, `lm` built
/// from text_config as the base model under `language_model`, and for the head class `model.` around both plus
/// `lm_head` (tied as text_config says).
blocks::Value conditional_generation(const BuildInput& in, blocks::GraphBuilder& b,
                                     const multimodal::LanguageModel& lm);

}  // namespace neurarch::families::glm4v
