#pragma once
// Swin V2's layer (swinv2.cpp), exported for the models that copy it (Swin2SR).
#include <cstddef>
#include <cstdint>

#include "families/swin_common.hpp"

namespace neurarch::families::swinv2 {

struct LayerSpec {
  std::int64_t dim = 0, heads = 0;
  std::int64_t window = 0;              ///< the window side it attends in (swin::window_side)
  std::int64_t grid_h = 0, grid_w = 0;  ///< the token grid
  std::size_t stage = 0;
  bool first = false;  ///< the stage's first layer (notes the grid's padding once)
};

/// Swinv2Layer under `l` (attention.self with logit_scale and continuous_position_bias_mlp, attention.output,
/// layernorm_before, intermediate, output, layernorm_after), block `block` of the graph.
graph::Value layer(graph::GraphBuilder& b, const graph::Value& x, const swin::Settings& settings, const LayerSpec& spec,
                   const graph::Scope& l, std::int64_t block);

}  // namespace neurarch::families::swinv2
