#pragma once
// Multi-head latent attention (DeepSeek-V2/V3's MLA): q goes through a low-rank bottleneck
// (q_a_proj -> RMSNorm -> q_b_proj, or one q_proj), k and v are expanded from one compressed
// latent (kv_a_proj_with_mqa -> RMSNorm -> kv_b_proj) plus a single RoPE key shared by all heads.
// One LatentAttention node owns every projection and carries the ranks for the planner.
#include <cstdint>
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

struct LatentAttentionSpec {
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t q_lora_rank = 0;  ///< 0: q_proj straight from the hidden state
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  bool bias = false;  ///< attention_bias: on q_a_proj, kv_a_proj_with_mqa and o_proj
  double dropout = 0.0;
  Scope module;  ///< self_attn
};

/// [seq, hidden] -> [seq, hidden], causal.
Value latent_attention(GraphBuilder& b, const Value& x, const std::string& name, const LatentAttentionSpec& spec);

}  // namespace neurarch::blocks
