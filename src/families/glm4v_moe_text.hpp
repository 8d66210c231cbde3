#pragma once
// GLM-4.5V's text decoder (glm4v_moe_text.cpp), which GLM-4.5V's composite model (glm4v_moe.cpp) builds too.
#include "families/llama_common.hpp"

namespace neurarch::families::glm4v_moe {

/// Glm4vMoeTextConfig's decoder: GLM-4.5's (glm4_moe.hpp) with biased q/k/v. `fused_experts`: the routed experts
/// as transformers 5.24 saves the standalone Glm4vMoeTextModel (gate_up_proj / down_proj [experts, out, in]);
/// inside Glm4vMoeForConditionalGeneration save_pretrained splits them back per expert.
decoder::DecoderSpec text_spec(const Config& text, bool fused_experts);

}  // namespace neurarch::families::glm4v_moe
