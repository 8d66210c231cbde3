#pragma once
// GLM-4.5's decoder (glm4_moe.cpp), whose layers GLM-4.5V's text model (glm4v_moe.cpp) repeats.
#include "families/llama_common.hpp"

namespace neurarch::families::glm4_moe {

/// The decoder spec of config `c` with the config class's `defaults` and attention_bias default: GQA with q/k/v
/// biases as attention_bias says, the first first_k_dense_replace layers dense, the rest routed mixtures with a
/// shared expert and an fp32 e_score_correction_bias.
decoder::DecoderSpec spec(const Config& c, const decoder::LlamaDefaults& defaults, bool attention_bias);

}  // namespace neurarch::families::glm4_moe
