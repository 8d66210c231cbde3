#pragma once
// The dense-prediction neck of DPT (models/dpt/modeling_dpt.py, transformers 4.47.1), which Depth Anything
// and its relatives copy: a reassemble stage turns the token sequences of chosen backbone layers into maps at
// four scales (the CLS token ignored, added or concatenated and projected per DPT's readout_type; a 1x1 conv
// to neck_hidden_sizes[i]; a stride-f transposed conv, nothing, or a stride-1/f 3x3 conv for factor f), 3x3
// convs bring every map to fusion_hidden_size, and fusion layers climb from the coarsest map: add a pre-
// activation residual unit of the next map, another residual unit, a bilinear upsample (x2, or to the next
// map's size in Depth Anything) and a 1x1 projection.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::dpt {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

/// reassemble_factors: positive numbers (4, 2, 1, 0.5); `fallback` when absent. Errors name the key.
std::vector<double> factor_list(const Config& c, std::string_view key, const std::vector<double>& fallback);

enum class Readout { Ignore, Add, Project };
/// readout_type "ignore" | "add" | "project"; anything else is refused naming the key.
Readout read_readout(const Config& c);

struct NeckSpec {
  Scope neck;                         ///< "neck"
  std::int64_t token_width = 0;       ///< channels of the backbone's tokens
  std::int64_t grid_h = 0, grid_w = 0;  ///< the patch grid the tokens come from
  std::vector<std::int64_t> neck_hidden;  ///< neck_hidden_sizes
  std::vector<double> factors;            ///< reassemble_factors
  std::int64_t fusion = 256;              ///< fusion_hidden_size
  Readout readout = Readout::Ignore;
  std::string readout_activation = "gelu";  ///< after DPT's readout projection (hidden_act)
  bool residual_batch_norm = false;         ///< use_batch_norm_in_fusion_residual
  bool residual_bias = true;                ///< use_bias_in_fusion_residual
  bool upsample_to_next = false;            ///< Depth Anything: each fusion layer upsamples to the next map's size
  /// When set, runs inside fusion layer `layer` on residual_layer2's output, before the upsample, and returns
  /// what the upsample reads (Prompt Depth Anything adds its prompt-depth convs there).
  std::function<Value(GraphBuilder& b, const Value& h, const std::string& name, const Scope& layer)> fusion_extra;
};

/// Tokens [1 + grid_h grid_w, token_width] of each chosen layer (CLS first), shallowest first -> the fusion
/// layers' outputs, coarsest first (the last one is the finest, what the heads usually read).
std::vector<Value> neck(GraphBuilder& b, const std::vector<Value>& tokens, const NeckSpec& s);

/// Python's list[index] over `size` entries (negative counts from the end); throws naming `key` when out of range.
std::size_t python_index(const Config& c, std::string_view key, std::int64_t index, std::size_t size);

}  // namespace neurarch::families::dpt
