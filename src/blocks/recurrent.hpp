#pragma once
// Recurrent token mixers: each scans the sequence with a state of fixed size instead of attending over it. One
// RecurrentMixer node per mixer owns its tensors; graph::RecurrentAttrs tells the planner which cell it runs and
// how wide it is. Each weight states what it multiplies (graph::Operand): the input projections the node's input,
// convolutions and gates an activation inside the cell, the output projection the scan's output.
// - Griffin's recurrent block (RecurrentGemma): a gelu branch y, a branch x through a depthwise causal conv1d
//   and the real-gated linear recurrent unit (RG-LRU), their product projected back (De et al., arXiv:2402.19427).
// - RWKV-4's time mix: key, value and receptance from token-shift mixes, the WKV recurrence, the output
//   projection; its channel mix is a feed-forward node with a receptance gate (Peng et al., arXiv:2305.13048).
// - MiniMax's lightning attention: silu(qkv_proj), linear attention with a fixed per-head decay computed block
//   by block, an RMSNorm over the heads, a sigmoid output gate, out_proj (Qin et al., arXiv:2401.04658).
// - xLSTM's mLSTM layer: q, k, v and per-head input and forget gates, a matrix memory per head, a multi-head
//   LayerNorm and a sigmoid output gate before out_proj (Beck et al., arXiv:2405.04517 and arXiv:2503.13427).
#include <cstdint>
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

struct RgLruBlockSpec {
  std::int64_t hidden = 0;
  std::int64_t width = 0;  ///< lru_width
  std::int64_t heads = 0;  ///< block-diagonal gate blocks
  std::int64_t conv_kernel = 4;
  std::string activation;  ///< on the y branch
  Scope module;            ///< linear_y, linear_x, conv_1d, rg_lru.*, linear_out
};

/// [seq, hidden] -> [seq, hidden].
Value rg_lru_block(GraphBuilder& b, const Value& x, const std::string& name, const RgLruBlockSpec& spec);

struct WkvTimeMixSpec {
  std::int64_t hidden = 0;
  std::int64_t width = 0;  ///< attention_hidden_size
  Scope module;            ///< time_decay, time_first, time_mix_*, key, value, receptance, output
};

/// [seq, hidden] -> [seq, hidden].
Value wkv_time_mix(GraphBuilder& b, const Value& x, const std::string& name, const WkvTimeMixSpec& spec);

/// RWKV's channel mix: sigmoid(receptance(xr)) * value(relu(key(xk))^2), xk and xr token-shift mixes (time_mix_key,
/// time_mix_receptance); key [intermediate, hidden], value [hidden, intermediate], receptance [hidden, hidden].
Value wkv_channel_mix(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                      std::int64_t hidden, std::int64_t intermediate);

struct MlstmSpec {
  std::int64_t hidden = 0;
  std::int64_t qk_dim = 0;
  std::int64_t v_dim = 0;
  std::int64_t heads = 0;
  std::int64_t chunk = 64;  ///< the chunkwise kernel's chunk_size
  bool fused = false;       ///< weight_mode "fused": qkv_opreact and ifgate_preact
  bool bias = false;        ///< use_bias: the projections, out_proj and the norm
  Scope module;
};

/// [seq, hidden] -> [seq, hidden].
Value mlstm_layer(GraphBuilder& b, const Value& x, const std::string& name, const MlstmSpec& spec);

struct LightningSpec {
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t block = 256;  ///< block_size: the decay buffers' length and the blocks of the scan
  Scope module;              ///< qkv_proj, output_gate, norm, out_proj and the decay buffers
};

/// [seq, hidden] -> [seq, hidden]. The decays are persistent buffers: slope_rate [heads, 1, 1], query_decay and
/// key_decay [heads, block, 1], diagonal_decay [1, heads, block, block].
Value lightning_attention(GraphBuilder& b, const Value& x, const std::string& name, const LightningSpec& spec);

}  // namespace neurarch::blocks
