#pragma once
// The conformer layer of wav2vec2-conformer and wav2vec2-bert (models/wav2vec2_conformer/
// modeling_wav2vec2_conformer.py, models/wav2vec2_bert/modeling_wav2vec2_bert.py): two half-step
// feed-forwards around self-attention and a convolution module, then a final LayerNorm:
//   h = x + 0.5 ffn1(ln(x));  h = h + attn(ln(h));  h = h + conv(h);  out = ln(h + 0.5 ffn2(ln(h)))
// The convolution module is LayerNorm -> pointwise conv (C -> 2C) -> GLU -> depthwise conv ->
// BatchNorm (conformer) or LayerNorm (bert, whose depthwise conv is causal) -> act -> pointwise conv.
#include <cstdint>
#include <string>

#include "families/family.hpp"

namespace neurarch::families::conformer {

/// config.position_embeddings_type.
enum class Positions {
  None,
  Relative,     ///< Transformer-XL: linear_pos over a [2T - 1, hidden] sinusoid, pos_bias_u / pos_bias_v
  Rotary,       ///< RoPE on the attention's input (inv_freq lives on the encoder)
  RelativeKey,  ///< wav2vec2-bert: a clamped-distance table distance_embedding [left + right + 1, head_dim]
};

/// Reads position_embeddings_type ("relative", "rotary", "relative_key" or null); others are refused.
Positions positions_from(const Config& c, const std::string& fallback);

struct LayerSpec {
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t intermediate = 0;
  std::int64_t depthwise_kernel = 31;
  std::string activation;  ///< hidden_act: the feed-forwards' and the convolution module's
  double hidden_dropout = 0;
  double attention_dropout = 0;
  double activation_dropout = 0;
  double conv_dropout = 0;  ///< conformer_conv_dropout
  Positions positions = Positions::None;
  std::int64_t left_positions = 64;  ///< RelativeKey: left_max_position_embeddings
  std::int64_t right_positions = 8;  ///< RelativeKey: right_max_position_embeddings
  /// wav2vec2-bert: the depthwise conv is left-padded by kernel - 1 (causal) and followed by a
  /// LayerNorm (depthwise_layer_norm); the conformer pads kernel / 2 each side and uses BatchNorm1d.
  bool causal_depthwise = false;
};

/// Layer `i` at module path `l` (encoder.layers.i).
graph::Value layer(graph::GraphBuilder& b, const graph::Value& x, std::int64_t i, const graph::Scope& l,
                   const LayerSpec& s);

}  // namespace neurarch::families::conformer
