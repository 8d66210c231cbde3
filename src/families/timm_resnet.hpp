#pragma once
// timm's ResNet (timm/models/resnet.py), the architecture the timm_wrapper and timm_backbone types name by a
// string ("resnet50"): the config says nothing else about it, so only names whose layout follows from the name
// alone are built (resnet18/26/34/50/101/152: depths and basic or bottleneck blocks). Stem conv1 7x7/2 + bn1 +
// ReLU + 3x3/2 max pool; stages layer1..layer4 (widths 64..512, x4 for bottlenecks), the first block of a stage
// with a strided 1x1 downsample (conv + BatchNorm) when the shape changes; all convs bias-free.
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::timm {

struct ResNetSpec {
  std::string_view key;  ///< the config key naming the architecture, for errors
  std::string architecture;
  graph::Scope root;             ///< "" (TimmWrapper) or "_backbone" (TimmBackbone)
  std::int64_t channels = 3;
  std::int64_t last_stage = 4;  ///< features_only models stop after this stage (1..4)
};

/// The last stage's [C, H, W] map.
graph::Value resnet(const BuildInput& in, graph::GraphBuilder& b, const Config& c, const ResNetSpec& spec);

}  // namespace neurarch::families::timm
