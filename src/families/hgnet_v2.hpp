#pragma once
// HGNet-V2's trunk (models/hgnet_v2/modular_hgnet_v2.py): the stem and the stages of aggregated conv blocks, as
// HGNetV2Backbone builds them; D-FINE runs it as its backbone with frozen batch norm.
#include <cstdint>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::hgnet_v2 {

/// Feature maps by stage (index 0 = the stem's output, i = stage i) and their channels.
struct Features {
  std::vector<blocks::Value> stages;
  std::vector<std::int64_t> channels;
};

/// The trunk read from the HGNetV2 config `c`, under `root` (embedder.*, encoder.stages.*), on `pixels`
/// [num_channels, H, W]. `frozen`: FrozenBatchNorm2d in place of every BatchNorm2d (D-FINE's
/// freeze_backbone_batch_norms).
Features trunk(const Config& c, blocks::GraphBuilder& b, const blocks::Value& pixels, const blocks::Scope& root,
               bool frozen);

}  // namespace neurarch::families::hgnet_v2
