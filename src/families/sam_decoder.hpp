#pragma once
// SAM's prompt encoder and mask decoder (models/sam/modeling_sam.py, transformers 4.47.1 and 4.57.6), exported so
// that SAM-HQ (models/sam_hq/modular_sam_hq.py, whose SamHQMaskDecoder is SAM's plus a high-quality token and its
// feature path) starts from them and states only its additions.
#include <cstdint>
#include <string>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::sam {

/// mask_decoder_config, with SamMaskDecoderConfig's defaults.
struct MaskDecoderDims {
  std::int64_t hidden, layers, heads, mlp, downsample, masks, iou_depth, iou_hidden;
  std::string activation;
};
MaskDecoderDims read_mask_decoder(const Config& decoder);

/// What the two-way transformer hands the decoder's heads.
struct TwoWayState {
  graph::Value tokens;  ///< the output tokens after the final token-to-image attention, [tokens, hidden]
  graph::Value image;   ///< the image tokens after the last layer, [grid_h x grid_w, hidden]
  std::int64_t grid_h = 0, grid_w = 0;
};

/// Where SAM's descendants differ in the prompt encoder and the two-way transformer (SAM 2's modular file renames
/// modules and changes the token MLP).
struct TwoWayLayout {
  std::int64_t fourier = 128;  ///< Fourier features per axis: shared_image_embedding is [2, fourier]
  /// SAM: one [1, hidden] point_embed.<i> table per point label; SAM 2: one [num_point_embeddings, hidden] table.
  bool point_table_per_label = true;
  std::string attention_out = "out_proj";  ///< the attentions' output projection (SAM 2: o_proj)
  /// SAM: the token MLP is lin1 -> hidden_act -> lin2. SAM 2: a Sam2FeedForward (proj_in, layers, proj_out, ReLU)
  /// of mask_decoder_config.num_hidden_layers linears.
  bool feed_forward_chain = false;
  /// Further [1, hidden] output-token tables the decoder concatenates with iou_token and mask_tokens.
  std::vector<std::string> extra_tokens;
};

/// The shared Fourier embedding, the prompt encoder (one point prompt, no mask prompt) and the mask decoder up to
/// its two-way transformer, over the image embedding `image` ([channels, grid_h, grid_w]).
TwoWayState prompted_two_way(graph::GraphBuilder& b, const Config& c, const graph::Value& image,
                             const MaskDecoderDims& d, const TwoWayLayout& layout);

/// nn.ConvTranspose2d(in, out, kernel 2, stride 2).
graph::Value upscale(graph::GraphBuilder& b, const graph::Value& x, const std::string& name,
                     const graph::Scope& module, std::int64_t in, std::int64_t out);

/// SamFeedForward: proj_in, depth - 2 square layers, proj_out, ReLU between.
graph::Value feed_forward(graph::GraphBuilder& b, const graph::Value& x, const std::string& name,
                          const graph::Scope& module, std::int64_t in, std::int64_t hidden, std::int64_t out,
                          std::int64_t depth);

/// The mask decoder's image path: the last image tokens as a map, upscale_conv1, upscale_layer_norm, upscale_conv2
/// (hidden / 8 channels at 4x the grid).
graph::Value upscaled_embedding(graph::GraphBuilder& b, const TwoWayState& s, const MaskDecoderDims& d);

}  // namespace neurarch::families::sam
