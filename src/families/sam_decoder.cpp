#include "families/sam_decoder.hpp"

#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "blocks/seq2seq.hpp"
#include "families/convnext_common.hpp"

namespace neurarch::families::sam {

using namespace blocks;
using graph::NodeType;

namespace sam_decoder_impl {
namespace {

// SamAttention: q from `queries`, k and v from `keys`, all projected to hidden / downsample and back.
Value attend(GraphBuilder& b, const Value& queries, const Value& keys, const std::string& name, const Scope& module,
             const MaskDecoderDims& d, const TwoWayLayout& layout) {
  const std::int64_t internal = d.hidden / d.downsample;
  AttentionSpec spec{.hidden = d.hidden, .heads = d.heads, .head_dim = internal / d.heads, .module = module,
                     .q = module / "q_proj", .k = module / "k_proj", .v = module / "v_proj",
                     .o = module / layout.attention_out, .require_divisible = false};
  auto out = cross_attention(b, queries, keys, name, spec, d.hidden);
  if (internal % d.heads != 0)
    b.fail(out, fmt::format("num_attention_heads {} must divide hidden_size / downsample_rate {}", d.heads, internal));
  return out;
}

}  // namespace
}  // namespace sam_decoder_impl
using namespace sam_decoder_impl;

MaskDecoderDims read_mask_decoder(const Config& decoder) {
  return {.hidden = decoder.dim({"hidden_size"}, 256),
          .layers = decoder.dim({"num_hidden_layers"}, 2),
          .heads = decoder.dim({"num_attention_heads"}, 8),
          .mlp = decoder.dim({"mlp_dim"}, 2048),
          .downsample = decoder.dim({"attention_downsample_rate"}, 2),
          .masks = decoder.dim({"num_multimask_outputs"}, 3) + 1,
          .iou_depth = decoder.dim({"iou_head_depth"}, 3),
          .iou_hidden = decoder.dim({"iou_head_hidden_dim"}, 256),
          .activation = decoder.text({"hidden_act"}, "relu")};
}

Value upscale(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
              std::int64_t out) {
  // Each input pixel scatters in x out x 4 products, so its FLOPs are the convolution's over the input grid.
  auto y = b.node(NodeType::Conv2d, name, {out, 2 * x.shape[1], 2 * x.shape[2]}, {x}, module);
  b.at(y).spatial = graph::SpatialAttrs{2, 2, 1, 0, 1, false};
  b.parameter(y, module("weight"), {in, out, 2, 2}, graph::TensorRole::Conv);
  b.parameter(y, module("bias"), {out}, graph::TensorRole::Bias);
  if (x.shape[0] != in) b.fail(y, fmt::format("expects {} channels, receives {}", in, x.shape[0]));
  return y;
}

Value feed_forward(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                   std::int64_t hidden, std::int64_t out, std::int64_t depth) {
  auto h = dense(b, x, name + "_In", module / "proj_in", in, hidden, true, "relu");
  for (std::int64_t i = 0; i + 2 < depth; ++i)
    h = dense(b, h, fmt::format("{}_{}", name, i), module / "layers" / i, hidden, hidden, true, "relu");
  return dense(b, h, name + "_Out", module / "proj_out", hidden, out, true);
}

TwoWayState prompted_two_way(GraphBuilder& b, const Config& c, const Value& image, const MaskDecoderDims& d,
                             const TwoWayLayout& layout) {
  const Config prompt = c.child("prompt_encoder_config");
  const std::int64_t channels = image.shape[0], grid_h = image.shape[1], grid_w = image.shape[2];

  // The Fourier features of the image grid and of the prompt points share one buffer.
  const std::int64_t fourier = layout.fourier;
  auto image_positions = b.node(NodeType::Linear, "Image_Positional_Embedding", {2 * fourier, grid_h, grid_w}, {image},
                                Scope("shared_image_embedding"));
  b.buffer(image_positions, "shared_image_embedding.positional_embedding", {2, fourier}, DType::F32);

  const std::int64_t hidden = prompt.dim({"hidden_size"}, 256);
  const std::int64_t mask_channels = prompt.dim({"mask_input_channels"}, 16);
  const std::int64_t point_tables = prompt.dim({"num_point_embeddings"}, 4);
  auto points = b.input({1, 2}, "points", "input_points");
  // One labelled point plus the not-a-point pad: two sparse prompt tokens.
  auto sparse = b.node(NodeType::Embedding, "Prompt_Point_Embedding", {2, hidden}, {points, image_positions},
                       Scope("prompt_encoder"));
  b.tied(sparse, "prompt_encoder.shared_embedding.positional_embedding", {2, fourier},
         "shared_image_embedding.positional_embedding", graph::TensorRole::Embedding);
  if (layout.point_table_per_label) {
    for (std::int64_t i = 0; i < point_tables; ++i)
      b.parameter(sparse, (Scope("prompt_encoder") / "point_embed" / i)("weight"), {1, hidden}, graph::TensorRole::Embedding);
  } else {
    b.parameter(sparse, "prompt_encoder.point_embed.weight", {point_tables, hidden}, graph::TensorRole::Embedding);
  }
  b.parameter(sparse, "prompt_encoder.not_a_point_embed.weight", {1, hidden}, graph::TensorRole::Embedding);
  if (2 * fourier != hidden)
    b.fail(sparse, fmt::format("the {} Fourier features of a point are not the prompt's {} channels", 2 * fourier,
                               hidden));
  // Without a mask prompt the dense embedding is no_mask_embed broadcast over the grid; mask_embed waits unused
  // (idle: no gradient, no optimizer state).
  auto dense_prompt = b.node(NodeType::Add, "Prompt_Dense_Embedding", image.shape, {image}, Scope("prompt_encoder"));
  b.parameter(dense_prompt, "prompt_encoder.no_mask_embed.weight", {1, hidden}, graph::TensorRole::Embedding);
  const Scope mask_embed = Scope("prompt_encoder") / "mask_embed";
  const std::int64_t quarter = mask_channels / 4;
  for (const auto& [conv, from, to, kernel] :
       {std::tuple{"conv1", std::int64_t{1}, quarter, std::int64_t{2}},
        std::tuple{"conv2", quarter, mask_channels, std::int64_t{2}},
        std::tuple{"conv3", mask_channels, hidden, std::int64_t{1}}}) {
    b.parameter(dense_prompt, (mask_embed / conv)("weight"), {to, from, kernel, kernel}, graph::TensorRole::Conv,
                graph::Operand::Idle);
    b.parameter(dense_prompt, (mask_embed / conv)("bias"), {to}, graph::TensorRole::Bias, graph::Operand::Idle);
  }
  for (const auto& [norm_name, width] : {std::pair{"layer_norm1", quarter}, std::pair{"layer_norm2", mask_channels}}) {
    b.parameter(dense_prompt, (mask_embed / norm_name)("weight"), {width}, graph::TensorRole::Norm,
                graph::Operand::Idle);
    b.parameter(dense_prompt, (mask_embed / norm_name)("bias"), {width}, graph::TensorRole::Bias, graph::Operand::Idle);
  }
  if (channels != hidden)
    b.fail(dense_prompt, fmt::format("the image embedding has {} channels, the prompts {}", channels, hidden));

  const Scope md("mask_decoder");
  const auto output_tokens = 1 + d.masks + static_cast<std::int64_t>(layout.extra_tokens.size());
  auto tokens = b.node(NodeType::Embedding, "Output_Tokens", {output_tokens + 2, d.hidden}, {sparse}, md);
  b.parameter(tokens, "mask_decoder.iou_token.weight", {1, d.hidden}, graph::TensorRole::Embedding);
  b.parameter(tokens, "mask_decoder.mask_tokens.weight", {d.masks, d.hidden}, graph::TensorRole::Embedding);
  for (const auto& table : layout.extra_tokens) b.parameter(tokens, table, {1, d.hidden}, graph::TensorRole::Embedding);
  Value keys{dense_prompt.node, {grid_h * grid_w, channels}};

  const Scope transformer = md / "transformer";
  Value queries = tokens;
  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(b.next_block());
    const Scope l = transformer / "layers" / i;
    const BlockNames n{i};
    auto h = attention(b, queries, fmt::format("Token_Attention_{}", i),
                       {.hidden = d.hidden, .heads = d.heads, .module = l / "self_attn", .q = l / "self_attn" / "q_proj",
                        .k = l / "self_attn" / "k_proj", .v = l / "self_attn" / "v_proj",
                        .o = l / "self_attn" / layout.attention_out});
    // The first layer replaces the queries by their self-attention (skip_first_layer_pe); later ones add it.
    queries = norm(b, i == 0 ? h : add(b, h, queries, n.add(1)), n.norm(1, NormKind::LayerNorm), {l / "layer_norm1"});
    h = sam_decoder_impl::attend(b, queries, keys, fmt::format("Token_To_Image_{}", i), l / "cross_attn_token_to_image", d, layout);
    queries = norm(b, add(b, h, queries, n.add(2)), n.norm(2, NormKind::LayerNorm), {l / "layer_norm2"});
    h = layout.feed_forward_chain
            ? sam::feed_forward(b, queries, n.ffn(), l / "mlp", d.hidden, d.mlp, d.hidden, d.layers)
            : blocks::feed_forward(b, queries, n.ffn(),
                                   {.hidden = d.hidden, .intermediate = d.mlp, .activation = d.activation,
                                    .module = l / "mlp", .up = l / "mlp" / "lin1", .down = l / "mlp" / "lin2"});
    queries = norm(b, add(b, h, queries, n.add(3)), n.norm(3, NormKind::LayerNorm), {l / "layer_norm3"});
    h = sam_decoder_impl::attend(b, keys, queries, fmt::format("Image_To_Token_{}", i), l / "cross_attn_image_to_token", d, layout);
    keys = norm(b, add(b, h, keys, n.add(4)), n.norm(4, NormKind::LayerNorm), {l / "layer_norm4"});
  }
  b.set_block(-1);
  auto h = sam_decoder_impl::attend(b, queries, keys, "Final_Token_To_Image", transformer / "final_attn_token_to_image", d, layout);
  queries = norm(b, add(b, h, queries, "Final_Add"), "Final_LayerNorm", {transformer / "layer_norm_final_attn"});
  return {.tokens = queries, .image = keys, .grid_h = grid_h, .grid_w = grid_w};
}

Value upscaled_embedding(GraphBuilder& b, const TwoWayState& s, const MaskDecoderDims& d) {
  const Scope md("mask_decoder");
  Value map{s.image.node, {d.hidden, s.grid_h, s.grid_w}};
  map = upscale(b, map, "Upscale_Conv1", md / "upscale_conv1", d.hidden, d.hidden / 4);
  map = convnext::channels_first_norm(b, map, "Upscale_LayerNorm", md / "upscale_layer_norm");
  return upscale(b, map, "Upscale_Conv2", md / "upscale_conv2", d.hidden / 4, d.hidden / 8);
}

}  // namespace neurarch::families::sam
