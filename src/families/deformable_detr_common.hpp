#pragma once
// Deformable DETR (models/deformable_detr/modeling_deformable_detr.py, transformers 5.24; the shared fixtures are
// 4.47.1, saved in the same layout): DETR's backbone (detr_common.hpp) handing on several feature maps, each
// projected to d_model by a 1x1 convolution and a GroupNorm (input_proj.N), further levels made by 3x3 stride-2
// convolutions; the levels flattened into one token sequence with per-level positions (sine, plus level_embed).
// The encoder's self-attention and the decoder's cross-attention are multi-scale deformable attention
// (blocks/deformable_attention.hpp); the decoder's self-attention over the queries is ordinary multi-head
// attention. Post-norm layers throughout. See docs/deformable-detection.md.
#include <string>
#include <vector>

#include "families/detr_common.hpp"
#include "families/family.hpp"

namespace neurarch::families::deformable_detr {

/// Default input side: DeformableDetrImageProcessor resizes the shortest edge to 800, like DETR's.
inline constexpr std::int64_t kDefaultImageSize = 800;

/// What a relative changes: the config class's defaults, where the backbone and the learned position tables live,
/// and DETA's pixel queries. Deformable DETR is `Layout{}`.
struct Layout {
  std::int64_t levels = 4;  ///< num_feature_levels
  std::int64_t encoder_ffn = 1024;
  std::int64_t decoder_ffn = 1024;
  std::int64_t queries = 300;  ///< num_queries
  bool two_stage = false;
  bool box_refine = false;     ///< with_box_refine
  detr::BackboneLayout backbone;
  /// The learned row/column position tables' module under the model.
  std::vector<std::string> position_table{"position_embedding"};
  /// DETA: the two-stage content queries add pix_trans and pix_trans_norm of the chosen encoder tokens.
  bool pixel_queries = false;
};

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout);

}  // namespace neurarch::families::deformable_detr
