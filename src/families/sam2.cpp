// SAM 2 on single images (models/sam2/modular_sam2.py, transformers 4.57.6 and 5.24: Sam2Model). The vision model
// (sam2_common) under vision_encoder; its coarsest FPN level plus no_memory_embedding is the image embedding. The
// prompt encoder and two-way transformer are SAM's (sam_decoder) as SAM 2 renames them: one point_embed table, o_proj
// outputs, Fourier features of prompt hidden_size / 2, a token MLP of num_hidden_layers ReLU linears (proj_in,
// proj_out) and an obj_score_token before iou_token. The mask decoder adds the two finer FPN levels, projected by
// conv_s1 / conv_s0, after upscale_conv1 and upscale_conv2, and scores objectness with pred_obj_score_head. The
// graph runs one point prompt with multimask_output: three masks.
#include <fmt/format.h>

#include "core/error.hpp"
#include "families/convnext_common.hpp"
#include "families/sam2_common.hpp"
#include "families/sam_decoder.hpp"

namespace neurarch::families {
namespace sam2_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config prompt = c.child("prompt_encoder_config");
  const Config vision = c.child("vision_config");
  const auto d = sam::read_mask_decoder(c.child("mask_decoder_config"));
  const Scope md("mask_decoder");

  const auto levels = sam2::vision_model(in, b, vision, Scope("vision_encoder"));
  if (levels.size() < 3)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'vision_config.num_feature_levels'", c.origin()),
                "SAM 2's mask decoder reads three feature levels");
  // The high-resolution features are projected once per image (get_image_features).
  auto feat_s0 = conv2d(b, levels[0], "Conv_S0", {.module = md / "conv_s0", .in = d.hidden, .out = d.hidden / 8});
  auto feat_s1 = conv2d(b, levels[1], "Conv_S1", {.module = md / "conv_s1", .in = d.hidden, .out = d.hidden / 4});
  const std::int64_t memory = vision.dim({"fpn_hidden_size"}, 256);
  auto image = b.node(NodeType::Add, "No_Memory_Embedding", levels.back().shape, {levels.back()});
  b.parameter(image, "no_memory_embedding", {1, 1, memory}, graph::TensorRole::Embedding);

  const auto state = sam::prompted_two_way(b, c, image, d,
                                           {.fourier = prompt.dim({"hidden_size"}, 256) / 2,
                                            .point_table_per_label = false,
                                            .attention_out = "o_proj",
                                            .feed_forward_chain = true,
                                            .extra_tokens = {"mask_decoder.obj_score_token.weight"}});

  Value map{state.image.node, {d.hidden, state.grid_h, state.grid_w}};
  map = sam::upscale(b, map, "Upscale_Conv1", md / "upscale_conv1", d.hidden, d.hidden / 4);
  map = add(b, map, feat_s1, "Upscale_Add_S1");
  map = convnext::channels_first_norm(b, map, "Upscale_LayerNorm", md / "upscale_layer_norm");
  map = sam::upscale(b, map, "Upscale_Conv2", md / "upscale_conv2", d.hidden / 4, d.hidden / 8);
  map = add(b, map, feat_s0, "Upscale_Add_S0");
  b.at(map).activation = "gelu";

  const Value token{state.tokens.node, {d.hidden}};
  Value mask_weights;
  for (std::int64_t i = 0; i < d.masks; ++i)
    mask_weights = sam::feed_forward(b, token, fmt::format("Hypernetwork_{}", i), md / "output_hypernetworks_mlps" / i,
                                     d.hidden, d.hidden, d.hidden / 8, 3);
  auto iou = sam::feed_forward(b, token, "IoU_Head", md / "iou_prediction_head", d.hidden, d.iou_hidden, d.masks,
                               d.iou_depth);
  auto objectness = sam::feed_forward(b, token, "Object_Score_Head", md / "pred_obj_score_head", d.hidden, d.hidden,
                                      1, 3);
  // multimask_output: every mask token but the first.
  return b.node(NodeType::Linear, "Masks", {d.masks - 1, map.shape[1], map.shape[2]},
                {map, mask_weights, iou, objectness});
}

}  // namespace
}  // namespace sam2_impl

const Family& sam2_family() {
  static const Family family{"sam2", "models/sam2/modular_sam2.py", {{"Sam2Model", Head::Base}}, sam2_impl::build};
  return family;
}

}  // namespace neurarch::families
