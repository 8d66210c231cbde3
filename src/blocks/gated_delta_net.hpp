#pragma once
// The Gated DeltaNet mixer (Yang, Kautz & Hatamizadeh, "Gated Delta Networks", arXiv:2412.06464), as the
// Qwen3-Next and Qwen3.5 linear-attention layers build it: input projections give q and k (key_heads x
// key_head_dim), v and the output gate z (value_heads x value_head_dim), and per value head beta (b) and the
// decay input (a); a depthwise causal conv1d without bias mixes neighbouring tokens of q, k and v; the
// delta-rule recurrence runs with beta = sigmoid(b) and decay g = -exp(A_log) * softplus(a + dt_bias); an
// RMSNorm over each value head, gated by silu(z), and out_proj return to hidden. One GatedDeltaNet node owns
// every tensor and carries the head geometry for the planner.
#include <cstdint>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

struct GatedDeltaNetSpec {
  std::int64_t hidden = 0;
  std::int64_t key_heads = 0;
  std::int64_t value_heads = 0;
  std::int64_t key_head_dim = 0;
  std::int64_t value_head_dim = 0;
  std::int64_t conv_kernel = 4;
  /// false: q/k/v/z fused in in_proj_qkvz and b/a in in_proj_ba (Qwen3-Next); true: in_proj_qkv, in_proj_z,
  /// in_proj_b and in_proj_a (Qwen3.5).
  bool separate_projections = false;
  Scope module;
};

/// [seq, hidden] -> [seq, hidden].
Value gated_delta_net(GraphBuilder& b, const Value& x, const std::string& name, const GatedDeltaNetSpec& spec);

}  // namespace neurarch::blocks
