#pragma once
// Normalisations whose statistics and affine are fixed during fine-tuning (DETR-style backbones).
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

/// A batch norm with fixed statistics (DETR's FrozenBatchNorm2d: x * scale + shift): weight, bias,
/// running_mean and running_var are all buffers (in the model's dtype) and num_batches_tracked is not kept.
/// Its affine being buffers is what tells the planner it trains nothing and keeps no batch statistics.
Value frozen_batch_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                        const std::string& activation = "");

}  // namespace neurarch::blocks
