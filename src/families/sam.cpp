// Segment Anything (models/sam/modeling_sam.py + configuration_sam.py, transformers 4.47.1: SamModel). The image
// encoder of sam_common (vision_config) under vision_encoder; shared_image_embedding, a random Fourier projection
// kept as a persistent [2, num_pos_feats] buffer that the prompt encoder aliases (prompt_encoder.shared_embedding);
// the prompt encoder (prompt_encoder_config: one [1, hidden] table per point label in point_embed, not_a_point_embed,
// no_mask_embed, and mask_embed's three convs with two channels-first LayerNorms, which run only on a mask prompt);
// the mask decoder (mask_decoder_config): iou_token and num_multimask_outputs + 1 mask_tokens, a two-way transformer
// (per layer: token self-attention, token-to-image and image-to-token attention whose q/k/v project to
// hidden / attention_downsample_rate, a ReLU MLP, four LayerNorms; then final_attn_token_to_image and its norm), two
// stride-2 ConvTranspose2d upscalers with a LayerNorm, one 3-layer hypernetwork MLP per mask token and the IoU head.
// The graph runs one image with one point prompt (the reference pads it with a not-a-point token when no box is
// given) and multimask_output: three 4x-upscaled masks.
#include <fmt/format.h>

#include "families/sam_common.hpp"
#include "families/sam_decoder.hpp"

namespace neurarch::families {
namespace sam_impl {
namespace {

using graph::NodeType;
using graph::Scope;
using graph::Value;

Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  const auto d = sam::read_mask_decoder(c.child("mask_decoder_config"));
  const Config vision = c.child("vision_config");
  auto image = sam::vision_encoder(in, b, vision, Scope("vision_encoder"));
  const auto state = sam::prompted_two_way(b, c, image, d, {.fourier = vision.dim({"num_pos_feats"}, 128)});

  // Upscale the image tokens 4x; each mask token's hypernetwork turns it into weights over the upscaled channels.
  auto map = sam::upscaled_embedding(b, state, d);
  const Scope md("mask_decoder");
  Value mask_weights;
  for (std::int64_t i = 0; i < d.masks; ++i)
    mask_weights = sam::feed_forward(b, Value{state.tokens.node, {d.hidden}}, fmt::format("Hypernetwork_{}", i),
                                     md / "output_hypernetworks_mlps" / i, d.hidden, d.hidden, d.hidden / 8, 3);
  auto iou = sam::feed_forward(b, Value{state.tokens.node, {d.hidden}}, "IoU_Head", md / "iou_prediction_head",
                               d.hidden, d.iou_hidden, d.masks, d.iou_depth);
  // multimask_output: every mask token but the first.
  return b.node(NodeType::Linear, "Masks", {d.masks - 1, map.shape[1], map.shape[2]}, {map, mask_weights, iou});
}

}  // namespace
}  // namespace sam_impl

const Family& sam_family() {
  static const Family family{"sam", "models/sam/modeling_sam.py", {{"SamModel", Head::Base}}, sam_impl::build};
  return family;
}

}  // namespace neurarch::families
