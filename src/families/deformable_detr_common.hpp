#pragma once
// Deformable DETR (models/deformable_detr/modeling_deformable_detr.py, transformers 5.24; the shared fixtures are
// 4.47.1, saved in the same layout): DETR's backbone (detr_common.hpp) handing on several feature maps, each
// projected to d_model by a 1x1 convolution and a GroupNorm (input_proj.N), further levels made by 3x3 stride-2
// convolutions; the levels flattened into one token sequence with per-level positions (sine, plus level_embed).
// The encoder's self-attention and the decoder's cross-attention are multi-scale deformable attention
// (blocks/deformable_attention.hpp); the decoder's self-attention over the queries is ordinary multi-head
// attention. Post-norm layers throughout. See docs/deformable-detection.md.
#include "families/family.hpp"

namespace neurarch::families::deformable_detr {

/// Default input side: DeformableDetrImageProcessor resizes the shortest edge to 800, like DETR's.
inline constexpr std::int64_t kDefaultImageSize = 800;

graph::Value build(const BuildInput& in, graph::GraphBuilder& b);

}  // namespace neurarch::families::deformable_detr
