#include "families/align_common.hpp"

#include "families/efficientnet_common.hpp"

namespace neurarch::families::align {

using namespace blocks;

VisionTower vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root) {
  VisionTower t;
  auto x = efficientnet::blocks(in, b, c, root, t.width);
  // AvgPool2d (or MaxPool2d) with a hidden_dim-wide kernel and ceil_mode covers the whole map.
  x = pool(b, x, "Pooler", efficientnet::max_pooling(c));
  t.pooled = Value{x.node, {t.width}};
  return t;
}

}  // namespace neurarch::families::align
