#pragma once
// BiT's ResNet-v2 trunk (models/bit/modeling_bit.py), shared by BiT and ViT-hybrid's backbone: weight-
// standardised convolutions (ordinary weight parameters, standardised on the fly; never a bias), group norm
// with an activation, a 7x7 stride-2 stem and a 3x3 stride-2 max pool, then stages of bottleneck layers, pre-
// activation ("preactivation": norm -> conv, BiT) or post-activation ("bottleneck": conv -> norm, ViT-hybrid).
// Every stage's first layer has a 1x1 downsample on the shortcut. Padding follows global_padding: TF "SAME"
// and PyTorch's symmetric default give the same shapes for these odd kernels; "valid" pads nothing.
#include <cstdint>
#include <string>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::bit {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

/// BitConfig read with the reference's defaults.
struct Settings {
  std::int64_t channels = 3;
  std::int64_t embedding = 64;
  std::vector<std::int64_t> hidden{256, 512, 1024, 2048};  ///< as configured (BitModel's final norm uses the last)
  std::vector<std::int64_t> depths{3, 4, 6, 3};
  bool preactivation = true;
  std::string activation = "relu";
  std::int64_t groups = 32;
  std::string padding;  ///< global_padding, lower-cased; "" when null
  bool dynamic_pool_padding = false;
  std::int64_t output_stride = 32;
  std::int64_t width_factor = 1;
};
Settings read_settings(const Config& c);

/// A trunk's outputs: stages[0] is the stem's pooled map, stages[i] stage i's output.
struct Trunk {
  Value last;
  std::vector<Value> stages;
  std::vector<std::int64_t> channels;
};

/// BitModel's embedder and encoder under `root` (BitModel's "", "bit" in heads, a backbone's module), blocks
/// numbered from `first_block`. BitModel's final norm is the caller's.
Trunk trunk(GraphBuilder& b, const Value& pixels, const Settings& s, const Scope& root, std::int64_t first_block = 0);

}  // namespace neurarch::families::bit
