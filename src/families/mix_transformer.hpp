#pragma once
// The pre-norm layer of SegFormer's Mix Transformer and PVT v2 (same design, different module names): efficient
// self-attention whose keys and values come from a map reduced by an sr x sr stride conv + LayerNorm (PVT v2's
// linear attention: a 7x7 adaptive average pool, a 1x1 conv, LayerNorm and GELU), then a Mix-FFN (dense1 ->
// 3x3 depthwise conv -> activation -> dense2) over the tokens of an h x w map; PVT v1 has the same attention and
// a plain MLP.
#include <cstdint>
#include <string>

#include "families/family.hpp"

namespace neurarch::families::mix {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

/// [C, H, W] map <-> [H W, C] tokens (views).
Value as_tokens(const Value& map);
Value as_map(const Value& tokens, std::int64_t h, std::int64_t w);

struct LayerNames {
  Scope norm1, norm2;
  Scope attention;            ///< the attention node's module
  Scope q, k, v, o;
  Scope reduction, reduction_norm;  ///< spatial reduction conv and its LayerNorm
  Scope dense1, dwconv, dense2;  ///< dwconv empty: a plain MLP (PVT v1)
};

struct LayerSpec {
  std::int64_t dim = 0, heads = 1, sr_ratio = 1, inner = 0;
  std::int64_t h = 0, w = 0;  ///< the map the tokens come from
  std::string activation = "gelu";
  bool qkv_bias = true;
  bool linear_attention = false;  ///< PVT v2: pooled keys and values, ReLU after dense1
  double attention_dropout = 0.0, hidden_dropout = 0.0;
};

/// One layer over tokens `x` as repeated block `block`.
Value layer(GraphBuilder& b, const Value& x, std::int64_t block, const LayerSpec& s, const LayerNames& n);

}  // namespace neurarch::families::mix
