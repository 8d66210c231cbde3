// SAM-HQ (models/sam_hq/modular_sam_hq.py, transformers 4.57.6 and 5.24: SamHQModel). SAM's image encoder, prompt
// encoder and two-way transformer (sam_decoder), plus the high-quality output: an hq_token after the mask tokens
// with its own hypernetwork (hq_mask_mlp); HQ features from the image embedding (encoder_conv1, encoder_norm,
// encoder_conv2) added to the first global-attention layer's [grid, grid, vit_dim] state compressed the same way
// (compress_vit_conv1, _norm, _conv2); and mask_conv1 / mask_norm / mask_conv2 refining the upscaled embedding
// before the HQ features are added. The graph runs one point prompt with multimask_output: the three SAM masks
// plus the HQ mask.
#include <tuple>

#include <fmt/format.h>

#include "families/convnext_common.hpp"
#include "families/sam_common.hpp"
#include "families/sam_decoder.hpp"

namespace neurarch::families {
namespace sam_hq_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config decoder = c.child("mask_decoder_config");
  const auto d = sam::read_mask_decoder(decoder);
  const std::int64_t vit_dim = decoder.dim({"vit_dim"}, 768);
  const Scope md("mask_decoder");

  const Config vision = c.child("vision_config");
  auto encoder = sam::vision_encoder_states(in, b, vision, Scope("vision_encoder"));
  auto image = encoder.embedding;

  // HQ features: the image embedding and the first global layer's state, each upscaled 4x to hidden / 8 channels.
  auto embed = sam::upscale(b, image, "HQ_Encoder_Conv1", md / "encoder_conv1", d.hidden, d.hidden / 4);
  embed = convnext::channels_first_norm(b, embed, "HQ_Encoder_Norm", md / "encoder_norm");
  embed = sam::upscale(b, embed, "HQ_Encoder_Conv2", md / "encoder_conv2", d.hidden / 4, d.hidden / 8);
  Value hq_features = embed;
  if (!encoder.global_layers.empty()) {
    const Value& first = encoder.global_layers.front();
    Value vit{first.node, {first.shape.back(), image.shape[1], image.shape[2]}};
    auto vit_features = sam::upscale(b, vit, "HQ_Compress_Conv1", md / "compress_vit_conv1", vit_dim, d.hidden);
    vit_features = convnext::channels_first_norm(b, vit_features, "HQ_Compress_Norm", md / "compress_vit_norm");
    vit_features = sam::upscale(b, vit_features, "HQ_Compress_Conv2", md / "compress_vit_conv2", d.hidden,
                                d.hidden / 8);
    hq_features = add(b, embed, vit_features, "HQ_Features");
  } else {
    // Without a global layer the reference has no intermediate state and runs on the image embedding alone; the
    // compress_vit modules still exist.
    for (const auto& [conv, from, to] : {std::tuple{"compress_vit_conv1", vit_dim, d.hidden},
                                         std::tuple{"compress_vit_conv2", d.hidden, d.hidden / 8}}) {
      b.parameter(hq_features, (md / conv)("weight"), {from, to, 2, 2}, graph::TensorRole::Conv);
      b.parameter(hq_features, (md / conv)("bias"), {to}, graph::TensorRole::Bias);
    }
    b.parameter(hq_features, (md / "compress_vit_norm")("weight"), {d.hidden}, graph::TensorRole::Norm);
    b.parameter(hq_features, (md / "compress_vit_norm")("bias"), {d.hidden}, graph::TensorRole::Bias);
  }

  const auto state = sam::prompted_two_way(
      b, c, image, d,
      {.fourier = vision.dim({"num_pos_feats"}, 128), .extra_tokens = {"mask_decoder.hq_token.weight"}});
  auto map = sam::upscaled_embedding(b, state, d);
  auto hq_map = conv2d(b, map, "HQ_Mask_Conv1",
                       {.module = md / "mask_conv1", .in = d.hidden / 8, .out = d.hidden / 4, .kernel = 3,
                        .padding = 1});
  hq_map = convnext::channels_first_norm(b, hq_map, "HQ_Mask_Norm", md / "mask_norm");
  hq_map = conv2d(b, hq_map, "HQ_Mask_Conv2",
                  {.module = md / "mask_conv2", .in = d.hidden / 4, .out = d.hidden / 8, .kernel = 3, .padding = 1});
  hq_map = add(b, hq_map, hq_features, "HQ_Map");

  const Value token{state.tokens.node, {d.hidden}};
  Value mask_weights;
  for (std::int64_t i = 0; i < d.masks; ++i)
    mask_weights = sam::feed_forward(b, token, fmt::format("Hypernetwork_{}", i), md / "output_hypernetworks_mlps" / i,
                                     d.hidden, d.hidden, d.hidden / 8, 3);
  auto hq_weights = sam::feed_forward(b, token, "HQ_Hypernetwork", md / "hq_mask_mlp", d.hidden, d.hidden,
                                      d.hidden / 8, 3);
  auto iou = sam::feed_forward(b, token, "IoU_Head", md / "iou_prediction_head", d.hidden, d.iou_hidden, d.masks,
                               d.iou_depth);
  // multimask_output: the SAM masks but the first, then the HQ mask from the refined map.
  auto masks = b.node(NodeType::Linear, "Masks", {d.masks - 1, map.shape[1], map.shape[2]}, {map, mask_weights, iou});
  auto hq_mask = b.node(NodeType::Linear, "HQ_Mask", {1, map.shape[1], map.shape[2]}, {hq_map, hq_weights});
  return b.node(NodeType::Add, "Masks_With_HQ", masks.shape, {masks, hq_mask});
}

}  // namespace
}  // namespace sam_hq_impl

const Family& sam_hq_family() {
  static const Family family{"sam_hq", "models/sam_hq/modular_sam_hq.py", {{"SamHQModel", Head::Base}}, sam_hq_impl::build};
  return family;
}

}  // namespace neurarch::families
