#pragma once
// nn.GroupNorm over a [C, H, W] map (BiT's BitGroupNormActivation): statistics per group of C / groups
// channels, a per-channel affine, an optional activation after it. It is a BatchNorm node with trained
// weight and bias and no running statistics: autograd keeps the same things (the input, mean and rstd per
// group, the activation's own), and the node's name says which norm it is.
#include <cstdint>
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

/// `module.weight` and `module.bias`, [C]; fails when `groups` does not divide C.
Value group_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t groups,
                 const std::string& activation = "");

}  // namespace neurarch::blocks
