#pragma once
// Squeeze-and-excitation over a [C, H, W] map (RegNet-Y, EfficientNet): the spatial mean of each channel through
// a 1x1 conv to `reduced` channels + activation and a 1x1 conv back to C + sigmoid gives a per-channel gate
// that multiplies the map. The product is a LayerScale node reading the map and the gate: like a learned
// layer scale, its backward keeps the map (for the gate's gradient) and a [C] factor.
#include <cstdint>
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

struct SqueezeExciteSpec {
  Scope reduce, expand;  ///< the two 1x1 convolutions (both with a bias)
  std::int64_t channels = 0;
  std::int64_t reduced = 0;
  std::string activation = "relu";  ///< after the reduction
};

/// Nodes are named `name` + "_Pool", "_Reduce", "_Expand" and `name` (the product).
Value squeeze_excite(GraphBuilder& b, const Value& x, const std::string& name, const SqueezeExciteSpec& spec);

}  // namespace neurarch::blocks
