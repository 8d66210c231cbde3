#pragma once
// ALIGN's two towers (models/align/modeling_align.py, transformers 4.47.1), shared by AlignModel and the towers
// built alone (AlignTextModel, AlignVisionModel): a BERT text encoder under BERT-base's defaults with its tanh
// pooler, and an EfficientNet image tower (EfficientNet-B7 by default) whose encoder stops after its last MBConv
// block (no top conv) and is pooled over space as is (640 channels by default, no projection).
#include <cstdint>

#include "families/bert_common.hpp"
#include "families/family.hpp"

namespace neurarch::families::align {

/// AlignTextConfig's BERT layout: BERT-base's defaults, the pooler kept in the base class only.
inline const bert::Layout kTextLayout{.prefix = "", .defaults = {}, .pooler = bert::PoolerUse::BaseOnly};

struct VisionTower {
  graph::Value pooled;  ///< pooler_output: [channels of the last block]
  std::int64_t width = 0;
};

/// AlignVisionModel's modules (`embeddings`, `encoder.blocks`) under `root`, from the vision config `c`, and its
/// spatial pooler (AvgPool2d or MaxPool2d, as pooling_type says).
VisionTower vision_tower(const BuildInput& in, graph::GraphBuilder& b, const Config& c, const graph::Scope& root);

}  // namespace neurarch::families::align
