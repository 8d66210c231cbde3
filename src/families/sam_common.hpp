#pragma once
// SAM's image encoder (models/sam/modeling_sam.py, SamVisionEncoder; transformers 4.47.1 and 4.57.6 agree), shared
// by SamVisionModel and SamModel: a patch_size-stride conv stem, an absolute position table for the configured
// (image_size / patch_size)^2 grid, pre-norm layers with a fused qkv, decomposed relative positions (rel_pos_h /
// rel_pos_w [2 x side - 1, head_dim], side = window_size for windowed layers and the grid for the global ones in
// global_attn_indexes) and window attention (the grid padded to whole windows), then a neck: 1x1 conv, channels-
// first LayerNorm, 3x3 conv, LayerNorm, both convs bias-free, to output_channels.
#include <optional>
#include <string_view>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::sam {

/// A list of layer indexes (0 allowed, unlike a list of sizes); `fallback` when absent or null.
std::vector<std::int64_t> layer_indexes(const Config& c, std::string_view key, std::vector<std::int64_t> fallback);

/// The encoder's neck output, [output_channels, grid, grid], built under `root` ("vision_encoder") from the
/// vision config `c`; the pixel input is declared here. `mlp_dim` is the config class's default for that key
/// (SamVisionConfig has none: hidden_size x mlp_ratio).
graph::Value vision_encoder(const BuildInput& in, graph::GraphBuilder& b, const Config& c, const graph::Scope& root,
                            std::optional<std::int64_t> mlp_dim = std::nullopt);

/// The same encoder, also handing out the [grid, grid, hidden] output of every global-attention layer (the layers
/// SamHQVisionEncoder returns as intermediate_embeddings), in layer order.
struct EncoderStates {
  graph::Value embedding;
  std::vector<graph::Value> global_layers;
};
EncoderStates vision_encoder_states(const BuildInput& in, graph::GraphBuilder& b, const Config& c,
                                    const graph::Scope& root, std::optional<std::int64_t> mlp_dim = std::nullopt);

}  // namespace neurarch::families::sam
