#pragma once
// RT-DETR (models/rt_detr/modeling_rt_detr.py, transformers 5.24; the shared default is 4.47.1 and RT-DETR v2's
// 4.57.6, saved in the same layout): Deformable DETR's decoder (post-norm layers of self-attention over the queries
// and multi-scale deformable cross-attention, blocks/deformable_attention.hpp) behind a hybrid encoder instead of a
// deformable one. The ResNet-vd backbone (rt_detr_resnet.hpp, frozen batch norm) hands on stages 2-4; each is
// projected to encoder_hidden_dim (encoder_input_proj.N: 1x1 conv + BatchNorm); AIFI runs a transformer encoder
// layer over the levels in encode_proj_layers (the last by default) with 2-D sine positions; CCFM fuses the levels
// top-down (lateral_convs, fpn_blocks) and bottom-up (downsample_convs, pan_blocks) with CSP blocks of RepVGG
// convolutions. The decoder's queries are the top num_queries encoder tokens (enc_output, enc_score_head,
// enc_bbox_head): no query embedding table, positions from the reference boxes (decoder.query_pos_head). See
// docs/rt-detr.md.
#include "families/family.hpp"

namespace neurarch::families::rt_detr {

/// RTDetrImageProcessor resizes to 640 x 640.
inline constexpr std::int64_t kDefaultImageSize = 640;

/// What a relative changes. RT-DETR is `Layout{}`.
/// RT-DETR v2 (models/rt_detr_v2/modular_rt_detr_v2.py): the decoder's deformable attention samples
/// decoder_n_levels levels and keeps an n_points_scale buffer; the detection heads also live at the top level,
/// tied to the decoder's copies (which are saved).
/// D-FINE (models/d_fine/modular_d_fine.py): see d_fine.cpp.
enum class Variant { RtDetr, V2, DFine };
struct Layout {
  Variant variant = Variant::RtDetr;
};

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout);

}  // namespace neurarch::families::rt_detr
