#pragma once
// RT-DETR's ResNet-vd backbone (models/rt_detr/modeling_rt_detr_resnet.py, transformers 5.24): HF ResNet's config
// and stage layout (resnet_common.hpp) with the "vd" changes of He et al.'s bag of tricks: a deep stem of three 3x3
// convolutions (embedding_size / 2, embedding_size / 2, embedding_size) instead of one 7x7, and shortcuts that
// downsample by a 2x2 average pool (ceil mode) before a stride-1 1x1 convolution (module `shortcut.1`).
#include <cstdint>

#include "families/resnet_common.hpp"

namespace neurarch::families::rt_detr_resnet {

/// RTDetrResNetBackbone's embedder and encoder under `root`; stages[0] is the stem's max-pool output, stages[i]
/// stage i's. `norm` is Frozen inside RT-DETR (freeze_backbone_batch_norms).
resnet::Features trunk(resnet::GraphBuilder& b, const resnet::Value& pixels, const resnet::HfConfig& cfg,
                       const resnet::Scope& root, resnet::Norm norm);

}  // namespace neurarch::families::rt_detr_resnet
