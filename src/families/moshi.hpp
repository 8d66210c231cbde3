#pragma once
// Moshi's temporal transformer (moshi.cpp), exported for Kyutai speech-to-text, whose model is a MoshiModel with
// another token embedding and other defaults.
#include <cstdint>
#include <string>

#include "families/family.hpp"

namespace neurarch::families::moshi {

/// MoshiConfig's keys for the decoder stack, defaulted as the config class being read defaults them.
struct Dims {
  std::int64_t vocab = 32000, hidden = 4096, layers = 32, heads = 32, kv_heads = 0, head_dim = 0, ffn = 22528;
  std::int64_t positions = 3000, window = 3000;
  std::string activation = "silu";
  double attention_dropout = 0.0;
};

/// The config's values over `defaults` (kv_heads 0: num_attention_heads; head_dim 0: hidden / heads).
Dims read(const Config& c, const Dims& defaults);

/// MoshiModel's layers and final norm under `root` over embeddings x ([tokens, hidden]): pre-RMS-norm layers of
/// sliding-window causal attention with RoPE (q/k/v/o_proj.linear, no bias) and MoshiGatingMLP (fc1 to ffn_dim,
/// split into gate and value halves, fc2 from ffn_dim / 2).
graph::Value decoder(graph::GraphBuilder& b, graph::Value x, const Dims& d, const graph::Scope& root);

/// The text model's result: `lm_head` of `vocab` rows over the decoder when `head`, else the decoder's output.
graph::Value causal_lm_head(graph::GraphBuilder& b, const graph::Value& x, const Dims& d, bool head);

}  // namespace neurarch::families::moshi
