#pragma once
// ConvNeXt V2's Global Response Normalization (GRN): each channel's L2 norm over the spatial grid, divided by
// the mean of those norms over channels, rescales the map; a learned gamma and beta shaped [1, 1, 1, C] (as
// the reference stores them, broadcasting over a channels-last batch) scale it, and the input is added back.
// Modelled as a LayerScale node: a per-channel affine whose fp32 parameters promote a bf16 map and which keeps
// one map-sized tensor for gamma's gradient (x * N(x)); the copy of x the norm's backward keeps is not counted.
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

/// GRN over a channels-last [H, W, C] map: `module.weight` and `module.bias`, both [1, 1, 1, C].
Value global_response_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module);

}  // namespace neurarch::blocks
