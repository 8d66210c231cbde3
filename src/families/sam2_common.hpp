#pragma once
// SAM 2's image encoder (models/sam2/modeling_sam2.py, transformers 4.57.6 and 5.24), shared by Sam2HieraDetModel,
// Sam2VisionModel and Sam2Model. Hiera-Det: a Conv2d stem (patch_kernel_size, patch_stride, patch_padding) to
// channels-last tokens plus a position embedding (pos_embed [1, hidden, background] interpolated to the grid, plus
// pos_embed_window [1, hidden, w0, w0] tiled), then multi-scale blocks: LayerNorm; at a stage's first block a
// `proj` Linear of the normed tokens to the new width (max-pooled by query_stride) replaces the residual; a fused
// qkv attention inside window_size_per_stage windows (the previous stage's window at a stage's first block; global
// in global_attention_blocks) whose queries are max-pooled by query_stride at the first block of stages 1 ..
// num_query_pool_stages; proj; then LayerNorm and a 2-layer MLP (proj_in, proj_out). The vision model's FPN neck
// runs a 1x1 conv per stage end to fpn_hidden_size, deepest first, adding the nearest-upsampled coarser level at
// fpn_top_down_levels; its sine position encodings have no tensors.
#include <cstdint>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::sam2 {

/// Sam2HieraDetModel under `root` (the pixels declared here): each stage's last tokens, [h x w, width], with
/// their grid.
struct StageOutput {
  graph::Value tokens;
  std::int64_t grid_h = 0, grid_w = 0;
};
std::vector<StageOutput> hiera_det(const BuildInput& in, graph::GraphBuilder& b, const Config& c,
                                   const graph::Scope& root);

/// Sam2VisionModel under `root` (backbone, neck) from the vision config `c`: the FPN levels the model hands on,
/// finest first (the last num_feature_levels, reversed), each [fpn_hidden_size, h, w].
std::vector<graph::Value> vision_model(const BuildInput& in, graph::GraphBuilder& b, const Config& c,
                                       const graph::Scope& root);

}  // namespace neurarch::families::sam2
