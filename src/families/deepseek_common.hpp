#pragma once
// DeepSeek-V2 and -V3 share one layout: Llama's residual stack with multi-head latent attention
// in every layer, a dense MLP in the first first_k_dense_replace layers and routed + shared
// experts after. They differ in defaults, in the router (V3 adds an e_score_correction_bias
// buffer), in mlp_bias (V2 only) and in whether shared experts may be absent (V2: null).
#include <cstdint>

#include "blocks/latent_attention.hpp"
#include "families/moe_common.hpp"

namespace neurarch::families::deepseek {

struct Defaults {
  decoder::LlamaDefaults llama;
  std::int64_t first_k_dense_replace = 0;
  std::int64_t q_lora_rank = 1536;
  std::int64_t kv_lora_rank = 512;
  std::int64_t qk_nope_head_dim = 128;
  std::int64_t qk_rope_head_dim = 64;
  std::int64_t v_head_dim = 128;
  std::int64_t n_routed_experts = 64;
  std::int64_t n_shared_experts = 2;
  std::int64_t num_experts_per_tok = 0;  ///< the config's null: no top-k, the router cannot run
  std::int64_t moe_intermediate_size = 1407;
  bool reads_mlp_bias = true;          ///< V2's MLPs honour mlp_bias; V3's have no bias
  bool score_correction_bias = false;  ///< V3's router keeps e_score_correction_bias [experts] (fp32 buffer)
};

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Defaults& d);

/// The latent attention of every layer, read from the config with `d`'s defaults (LongCat-Flash reads the same
/// keys); the caller sets its module.
blocks::LatentAttentionSpec latent_attention(const Config& c, std::int64_t hidden, std::int64_t heads,
                                             const Defaults& d);

/// A DecoderSpec::attention_override that puts that latent attention, under `self_attn`, in every layer of `s`
/// (GLM-4.7-Flash and Youtu-LLM take it into their own stacks).
decltype(decoder::DecoderSpec::attention_override) latent_attention_in_layers(const Config& c,
                                                                              const decoder::DecoderSpec& s,
                                                                              const Defaults& d);

}  // namespace neurarch::families::deepseek
