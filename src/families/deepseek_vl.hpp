#pragma once
// DeepSeek-VL's composite (deepseek_vl.cpp), which DeepSeek-VL-Hybrid extends with a SAM high-resolution tower.
#include <functional>

#include "families/llava_common.hpp"

namespace neurarch::families::deepseek_vl {

/// DeepseekVLConfig's sub-configs: vision_config (a SigLIP tower; SiglipVisionConfig's defaults when absent) and
/// text_config (a Llama when it names no model_type).
llava::Parts read_parts(const Config& c);

/// The SigLIP tower under `vision_model` (nodes "Vision_..."): last_hidden_state, [patches, hidden].
clip::Tower low_res_tower(const BuildInput& in, blocks::GraphBuilder& b, const llava::Parts& p);

/// The whole model: under `model` (head classes), `image_features(b, text_hidden)` builds the towers and the
/// aligner and returns the image tokens [tokens, text_hidden]; then the language model under `language_model`,
/// whose prompt receives them, and `lm_head` beside `model` (tied as text_config says, as transformers 4.57 does).
blocks::Value build_model(const BuildInput& in, blocks::GraphBuilder& b, const llava::Parts& p,
                          const std::function<blocks::Value(blocks::GraphBuilder&, std::int64_t)>& image_features);

}  // namespace neurarch::families::deepseek_vl
