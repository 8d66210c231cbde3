#pragma once
// Multi-scale deformable attention (Zhu et al., "Deformable DETR", arXiv:2010.04159; transformers'
// DeformableDetrMultiscaleDeformableAttention and its copies in RT-DETR, Grounding DINO, Mask2Former and others).
// One DeformableAttention node per module owns sampling_offsets, attention_weights, value_proj and output_proj,
// declared in that order; graph::DeformableAttrs tells the planner how many points are sampled from how many
// value tokens. See docs/deformable-detection.md.
#include <cstdint>
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

struct DeformableAttentionSpec {
  std::int64_t hidden = 0;  ///< d_model: queries, values and the output
  std::int64_t heads = 0;
  std::int64_t levels = 0;     ///< feature levels (num_feature_levels)
  std::int64_t points = 0;     ///< sampling points per level and head (encoder_n_points / decoder_n_points)
  int reference_coords = 2;    ///< 2: points; 4: boxes (see graph::DeformableAttrs)
  Scope module;
  double output_dropout = 0.0;  ///< dropout on the module's output (the layer's `dropout`)
};

/// `queries` [Q, hidden] (the layer's stream plus positions) sample the flattened multi-level `value` tokens
/// [V, hidden] (V = sum of H x W over the levels); -> [Q, hidden]. Fails when hidden % heads != 0, as the
/// reference's constructor does.
Value deformable_attention(GraphBuilder& b, const Value& queries, const Value& value, const std::string& name,
                           const DeformableAttentionSpec& spec);

}  // namespace neurarch::blocks
