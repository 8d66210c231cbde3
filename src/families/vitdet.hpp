#pragma once
// ViTDet's model (vitdet.cpp), exported for the models built on VitDetBackbone (ViTMatte).
#include "families/family.hpp"

namespace neurarch::families::vitdet {

struct Output {
  graph::Value pixels;  ///< the pixel input it declares
  graph::Value map;     ///< the last layer's [hidden, H / patch, W / patch] map
};

/// VitDetModel from `in.config` (embeddings, encoder at the top level; nest it for a prefix).
Output model(const BuildInput& in, graph::GraphBuilder& b);

}  // namespace neurarch::families::vitdet
