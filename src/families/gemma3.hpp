#pragma once
// Gemma 3's vision-language model (gemma3.cpp), which ShieldGemma 2 wraps once more.
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::gemma3 {

/// Gemma3Model under `model` (vision_tower, multi_modal_projector, language_model: `text_type`'s base
/// model), then the head of `in.head` at the top level of `head_root`: lm_head (tied to the embedding
/// unless text_config says otherwise) for CausalLM, score for SequenceClassification, none for Base.
blocks::Value conditional_generation(const BuildInput& in, blocks::GraphBuilder& b, const blocks::Scope& model,
                                     const blocks::Scope& head_root, std::string_view text_type);

}  // namespace neurarch::families::gemma3
