#pragma once
// GLM-4.5's decoder (glm4_moe.cpp), whose layers GLM-4.5V's text model (glm4v_moe.cpp) repeats, and its
// DeepSeek-V3-style feed-forward, which dots.llm1 (dots1.cpp) puts on Qwen3's attention and Solar Open
// (solar_open.cpp) on every layer.
#include "families/llama_common.hpp"

namespace neurarch::families::glm4_moe {

/// The decoder spec of config `c` with the config class's `defaults` and attention_bias default: GQA with q/k/v
/// biases as attention_bias says, the first first_k_dense_replace layers dense, the rest routed mixtures with a
/// shared expert and an fp32 e_score_correction_bias.
/// The config class's defaults for the mixture's keys (a null default is 0 here: no experts, no top-k).
struct MoeDefaults {
  std::int64_t n_routed_experts = 128;
  std::int64_t moe_intermediate_size = 1408;
  std::int64_t n_shared_experts = 1;
  std::int64_t first_k_dense_replace = 1;
  std::int64_t num_experts_per_tok = 8;
  bool dense_layers = true;  ///< false: every layer is a mixture and first_k_dense_replace is not read (Solar Open)
  /// true: the routed experts stored as transformers 5 fuses them in memory, experts.gate_up_proj [experts,
  /// 2 x moe_intermediate, hidden] and experts.down_proj [experts, hidden, moe_intermediate], where save_pretrained
  /// has no conversion back to per-expert tensors for the model type (GLM-4.5V's standalone text model)
  bool fused_experts = false;
};

decoder::DecoderSpec spec(const Config& c, const decoder::LlamaDefaults& defaults, bool attention_bias,
                          const MoeDefaults& moe = {});

/// DeepSeek-V3's feed-forward on the stack `s`: a dense `mlp` (gate/up/down at s.intermediate) on the first
/// first_k_dense_replace layers, then router `mlp.gate` with its fp32 e_score_correction_bias, experts.<i> of
/// moe_intermediate_size and, when n_shared_experts > 0, shared_experts of moe_intermediate_size x n_shared_experts.
decltype(decoder::DecoderSpec::mlp_override) v3_feed_forward(const Config& c, const decoder::DecoderSpec& s,
                                                             const MoeDefaults& d);

/// The same feed-forward with the mixture layers given (`sparse[i]`) rather than read from first_k_dense_replace
/// (GLM-4.7-Flash's mlp_layer_types).
decltype(decoder::DecoderSpec::mlp_override) v3_feed_forward(const Config& c, const decoder::DecoderSpec& s,
                                                             const MoeDefaults& d, std::vector<bool> sparse);

}  // namespace neurarch::families::glm4_moe
