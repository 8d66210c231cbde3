#pragma once
// The ResNet trunks that vision families share: Hugging Face's ResNet (models/resnet/modeling_resnet.py:
// embedder + encoder.stages.N.layers.M) and timm's (conv1/bn1 + layer1..4, as DETR's timm backbone builds
// it). Both can run with trained BatchNorm2d or with DETR's frozen batch norm, and both report every
// stage's output so detection and segmentation heads can read the feature pyramid.
#include <cstdint>
#include <string>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::resnet {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

enum class Norm {
  Trained,  ///< nn.BatchNorm2d: affine parameters, running statistics, num_batches_tracked
  Frozen,   ///< FrozenBatchNorm2d: weight, bias and running statistics as buffers
};

/// A trunk's outputs: feature maps by stage (index 0 = the stem), each with its channel count.
struct Features {
  Value last;
  std::vector<Value> stages;
  std::vector<std::int64_t> channels;
};

/// ResNetConfig (HF) read with the reference's defaults.
struct HfConfig {
  std::int64_t channels = 3;
  std::int64_t embedding = 64;
  std::vector<std::int64_t> hidden{256, 512, 1024, 2048};
  std::vector<std::int64_t> depths{3, 4, 6, 3};
  bool bottleneck = true;
  std::string activation = "relu";
  bool first_stage_down = false;
  bool bottleneck_down = false;
};
HfConfig read_hf_config(const Config& c);

/// HF ResNet's embedder and encoder under `root` (ResNetModel's "" or "resnet", a backbone's module);
/// blocks are numbered from `first_block`. stages[0] is the embedder's max-pool output.
Features hf_trunk(GraphBuilder& b, const Value& pixels, const HfConfig& cfg, const Scope& root, Norm norm,
                  std::int64_t first_block = 0);

/// timm's ResNet layout by model name (resnet18/34: basic blocks; resnet26/50/101/152/200: bottlenecks).
struct TimmConfig {
  std::int64_t channels = 3;
  std::vector<std::int64_t> depths;
  bool bottleneck = true;
  std::int64_t output_stride = 32;  ///< 16 or 8 dilate the last stages instead of striding
  std::int64_t last_stage = 4;      ///< features_only keeps modules up to max(out_indices)
};
/// Throws Unsupported naming `key` for a model name whose layout is not a plain timm ResNet.
TimmConfig timm_layout(const Config& c, std::string_view key, const std::string& name);

/// timm's resnet as features_only builds it under `root`: conv1, bn1, maxpool, layer1..last_stage.
/// stages[0] is act1's output (stride 2), stages[i] layer i's.
Features timm_trunk(GraphBuilder& b, const Value& pixels, const TimmConfig& cfg, const Scope& root, Norm norm);

}  // namespace neurarch::families::resnet
