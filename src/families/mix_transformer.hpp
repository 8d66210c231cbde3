#pragma once
// The pre-norm layer of SegFormer's Mix Transformer and PVT v2 (same design, different module names): efficient
// self-attention whose keys and values come from a map reduced by an sr x sr stride conv + LayerNorm (PVT v2's
// linear attention: a 7x7 adaptive average pool, a 1x1 conv, LayerNorm and GELU), then a Mix-FFN (dense1 ->
// 3x3 depthwise conv -> activation -> dense2) over the tokens of an h x w map; PVT v1 has the same attention and
// a plain MLP.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::mix {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

/// The per-stage lists of SegformerConfig, and of PvtConfig / PvtV2Config which copy them: one entry a stage.
struct Stages {
  std::vector<std::int64_t> depths, hidden, sr, patches, strides, heads, ratios;
};

/// The config class's defaults for those lists, and the key of the reduction ratios (PVT v1 says
/// sequence_reduction_ratios).
struct StageDefaults {
  Stages lists;
  std::string_view sr_key = "sr_ratios";
};

/// SegformerConfig's defaults (MiT-b0).
StageDefaults segformer_defaults();
/// PvtV2Config's: SegFormer's, with mlp_ratios 8, 8, 4, 4.
StageDefaults pvt_v2_defaults();

/// depths, hidden_sizes, <sr_key>, patch_sizes, strides, num_attention_heads and mlp_ratios, each checked to
/// have `stages` entries (num_encoder_blocks), or as many as depths when the config class has no such key.
Stages read_stages(const Config& c, const StageDefaults& d, std::optional<std::int64_t> stages);

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
