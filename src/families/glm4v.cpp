// GLM-4.1V (models/glm4v/modeling_glm4v.py + configuration_glm4v.py, transformers 4.57.6): a native-resolution vision
// transformer under `visual` and the GLM-4.1V text decoder (glm4v_text) under `language_model`; the head class wraps
// both in `model` and adds `lm_head`. The tower: a Conv3d over temporal_patch_size x patch x patch cubes
// (patch_embed.proj, with bias; a still image is repeated in time), post_conv_layernorm, the image_size / patch
// square position table resampled bicubically to the image's patch grid (embeddings.position_embedding), pre-RMSNorm
// blocks with a fused qkv (attention_bias), 2-D rotary positions, proj without bias and a gated MLP out_hidden_size
// wide, post_layernorm, then `downsample`, a Conv2d of kernel = stride = spatial_merge_size (hidden ->
// out_hidden_size) over each merge x merge group, and the merger: proj, post_projection_norm (a LayerNorm), GELU and
// a gated MLP of intermediate_size. The prompt holds one token per merged group. The photo is square, --image-size
// else image_size, its side rounded to a multiple of patch x merge as the image processor's smart_resize does.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "families/clip_common.hpp"
#include "families/glm4v.hpp"
#include "families/llava_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {

using namespace blocks;
using graph::NodeType;

namespace glm4v {

Value vision(const BuildInput& in, GraphBuilder& b, const Config& c, Grid& grid) {
  const std::int64_t depth = c.dim({"depth"}, 24);
  const std::int64_t hidden = c.dim({"hidden_size"}, 1536);
  const std::int64_t heads = c.dim({"num_heads"}, 12);
  const std::int64_t out_hidden = c.dim({"out_hidden_size"}, 4096);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 13696);
  const std::int64_t channels = c.dim({"in_channels"}, 3);
  const std::int64_t image_size = c.dim({"image_size"}, 336);
  const std::int64_t patch = c.dim({"patch_size"}, 14);
  const std::int64_t merge = c.dim({"spatial_merge_size"}, 2);
  const std::int64_t temporal = c.dim({"temporal_patch_size"}, 2);
  const std::string activation = c.text({"hidden_act"}, "silu");
  const bool attention_bias = c.flag({"attention_bias"}, false);
  const double attention_dropout = c.number({"attention_dropout"}, 0.0);

  // smart_resize: each side to the nearest multiple of patch x merge (Python's round: half to even).
  const std::int64_t factor = patch * merge;
  grid.photo = in.image_size(image_size);
  grid.side = std::max<std::int64_t>(
      factor, static_cast<std::int64_t>(std::nearbyint(static_cast<double>(grid.photo) / static_cast<double>(factor))) *
                  factor);
  grid.patches_per_side = grid.side / patch;
  grid.patches = grid.patches_per_side * grid.patches_per_side;
  grid.tokens = grid.patches / (merge * merge);

  auto pixels = b.input({grid.patches, channels * temporal * patch * patch}, "pixels");
  // smart_resize refuses a side shorter than one merged group of patches.
  if (grid.photo < factor)
    b.fail(pixels, fmt::format("a {0}x{0} photo is smaller than one {1}x{1} group of merged patches", grid.photo,
                               factor));
  const Scope stem("patch_embed");
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {grid.patches, hidden}, {pixels}, stem);
  b.parameter(x, stem("proj.weight"), {hidden, channels, temporal, patch, patch}, graph::TensorRole::Conv);
  b.parameter(x, stem("proj.bias"), {hidden}, graph::TensorRole::Bias);
  x = norm(b, x, "Post_Conv_RMSNorm", {Scope("post_conv_layernorm"), NormKind::RMSNorm});
  const Scope table = Scope("embeddings") / "position_embedding";
  auto pos = b.node(NodeType::LearnedPosEmbed, "Resampled_Pos_Embed", x.shape, {x}, table);
  const std::int64_t table_side = image_size / patch;
  b.parameter(pos, table("weight"), {table_side * table_side, hidden}, graph::TensorRole::Embedding);
  x = pos;

  for (std::int64_t i = 0; i < depth; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = Scope("blocks") / i;
    const Scope attn = l / "attn";
    const Scope mlp = l / "mlp";
    PreNormLayer layer;
    layer.norm1 = {l / "norm1", NormKind::RMSNorm};
    layer.attention = {.hidden = hidden, .heads = heads, .module = attn, .o = attn / "proj", .qkv = attn / "qkv",
                       .qkv_bias = attention_bias, .o_bias = false, .dropout = attention_dropout, .rotary = true};
    layer.norm2 = {l / "norm2", NormKind::RMSNorm};
    layer.ffn = {.hidden = hidden, .intermediate = out_hidden, .activation = activation, .gated = true, .module = mlp,
                 .up = mlp / "up_proj", .down = mlp / "down_proj", .gate = mlp / "gate_proj", .bias = false,
                 .down_bias = false};
    x = pre_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);
  x = norm(b, x, "Post_RMSNorm", {Scope("post_layernorm"), NormKind::RMSNorm});

  // Each merge x merge group of patches is one small map the downsampling convolution reduces to one token.
  const std::int64_t merged_side = grid.patches_per_side / merge;
  auto down = conv2d(b, Value{x.node, {hidden, grid.patches_per_side, grid.patches_per_side}}, "Downsample",
                     {.module = Scope("downsample"), .in = hidden, .out = out_hidden, .kernel = merge,
                      .stride = merge});
  const Scope merger("merger");
  auto h = dense(b, Value{down.node, {grid.tokens, out_hidden}}, "Merger_Proj", merger / "proj", out_hidden,
                 out_hidden, false);
  h = norm(b, h, "Merger_LayerNorm", {merger / "post_projection_norm"});
  b.at(h).activation = "gelu";
  h = feed_forward(b, h, "Merger_MLP",
                   {.hidden = out_hidden, .intermediate = intermediate, .activation = activation, .gated = true,
                    .module = merger, .up = merger / "up_proj", .down = merger / "down_proj",
                    .gate = merger / "gate_proj", .bias = false, .down_bias = false});
  if (grid.patches_per_side % merge != 0 || merged_side * merged_side != grid.tokens)
    b.fail(down, fmt::format("a {}-patch side cannot be merged {} by {}", grid.patches_per_side, merge, merge));
  if (hidden % heads != 0) b.fail(h, fmt::format("vision width {} not divisible by {} heads", hidden, heads));
  return h;
}


Value vision_model(const BuildInput& in, GraphBuilder& b) {
  Grid grid;
  auto out = vision(in, b, in.config, grid);
  b.note(fmt::format("a {0}x{0} photo is resized to {1}x{1}: {2} patches through the vision tower, {3} merged image "
                     "features; --image-size sets the photo's side",
                     grid.photo, grid.side, grid.patches, grid.tokens));
  return out;
}

}  // namespace glm4v

namespace glm4v_impl {
namespace {

Config text_config_of(const Config& c) {
  return c.child("text_config", {{"model_type", "glm4v_text"}});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const auto lm = multimodal::find_language_model(
      in.config, text_config_of(in.config).text({"model_type"}, "glm4v_text"), Head::Base, "GLM-4.1V");
  return glm4v::conditional_generation(in, b, lm);
}

}  // namespace
}  // namespace glm4v_impl
using namespace glm4v_impl;

namespace glm4v {

Value conditional_generation(const BuildInput& in, GraphBuilder& b, const multimodal::LanguageModel& lm) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const Config text_config = glm4v_impl::text_config_of(c);
  const std::int64_t text_hidden = multimodal::token_width(in, text_config, lm);
  const bool with_head = in.head != Head::Base;
  glm4v::Grid grid;
  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    Value image;
    {
      graph::Nested nest(b, {.module = "visual", .label = "Vision_", .first_block = 0});
      image = vision(in, b, vision_config, grid);
    }
    if (image.shape.back() != text_hidden)
      b.fail(image, fmt::format("the merger writes {}-wide features into a {}-wide language model", image.shape.back(),
                                text_hidden));
    b.note(fmt::format("a {}x{} photo is resized to {}x{}: {} patches through the vision tower, {} image tokens in the "
                       "prompt; --image-size sets the photo's side",
                       grid.photo, grid.photo, grid.side, grid.side, grid.patches, grid.tokens));
    const std::int64_t seq = llava::prompt_length(in, b, text_config, grid.tokens);
    const BuildInput with_seq{in.config, in.class_name, in.head, seq, in.requested_image_size};
    out = multimodal::build_language_model(with_seq, b, text_config, lm,
                                           {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
    llava::scatter_into_prompt(b, image, grid.tokens);
  }
  if (with_head) out = llava::top_lm_head(b, out, text_config);
  return out;
}

}  // namespace glm4v

const Family& glm4v_family() {
  static const Family family{"glm4v", "models/glm4v/modeling_glm4v.py",
                             classes("Glm4v", {heads::VisionLanguageGeneration}), glm4v_impl::build};
  return family;
}

}  // namespace neurarch::families
