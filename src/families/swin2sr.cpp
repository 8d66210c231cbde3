// Swin2SR (models/swin2sr/modeling_swin2sr.py, transformers 4.47.1 and 5.24): image restoration with Swin V2 layers
// (swinv2.hpp) at full resolution. A 3x3 first_convolution to embed_dim, the embeddings (a patch_size conv and a
// LayerNorm; absolute positions when use_absolute_embeddings), then residual stages: Swin V2 layers in
// window_size windows (every second one shifted; no patch merging), the tokens folded back into the map, a 3x3 conv
// (resi_connection "1conv"; "3conv": 3x3 to a quarter, 1x1, 3x3 back, LeakyReLU between) and a 1x1 patch_embed
// projection, added to the stage's input; then the final layernorm and conv_after_body, added to the first
// convolution's output. Swin2SRForImageSuperResolution adds the upsampler: "pixelshuffle" (3x3 to 64 channels,
// LeakyReLU, a 3x3 conv + PixelShuffle(2) per doubling or one PixelShuffle(3), final 3x3 conv),
// "pixelshuffledirect" (one 3x3 conv + PixelShuffle(upscale)), "nearest+conv" (x4 by two nearest upsamples with
// 3x3 convs) or, for any other value, one final 3x3 conv (denoising). "pixelshuffle_aux" (which also reads a bicubic
// upsampling of the image) is refused.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/swinv2.hpp"

namespace neurarch::families {
namespace swin2sr_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// The upsamplers' working width (num_features, fixed in the reference).
constexpr std::int64_t kFeatures = 64;

Value conv3x3(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t out,
              const std::string& activation = "") {
  auto h = conv2d(b, x, name, {.module = module, .in = x.shape[0], .out = out, .kernel = 3, .padding = 1});
  if (!activation.empty()) b.at(h).activation = activation;
  return h;
}

// nn.PixelShuffle(r): [C r^2, H, W] -> [C, H r, W r], a view.
Value pixel_shuffle(const Value& x, std::int64_t r) {
  return Value{x.node, {x.shape[0] / (r * r), x.shape[1] * r, x.shape[2] * r}};
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const swin::Settings s{.embed = c.dim({"embed_dim"}, 180),
                         .depths = size_list(c, "depths", {6, 6, 6, 6, 6, 6}),
                         .heads = size_list(c, "num_heads", {6, 6, 6, 6, 6, 6}),
                         .window = c.dim({"window_size"}, 8),
                         .mlp_ratio = c.number({"mlp_ratio"}, 2.0),
                         .qkv_bias = c.flag({"qkv_bias"}, true),
                         .hidden_dropout = c.number({"hidden_dropout_prob"}, 0.0),
                         .attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.0),
                         .activation = c.text({"hidden_act"}, "gelu")};
  require_length(c, "num_heads", s.heads, s.depths.size());
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t channels_out = c.has("num_channels_out") && c.raw({"num_channels_out"})->is_number_integer()
                                        ? c.dim({"num_channels_out"})
                                        : channels;
  const std::int64_t configured = c.dim({"image_size"}, 64);
  const std::int64_t patch = c.dim({"patch_size"}, 1);
  const std::string connection = c.text({"resi_connection"}, "1conv");
  if (connection != "1conv" && connection != "3conv")
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'resi_connection'", c.origin()),
                fmt::format("expected '1conv' or '3conv', found '{}'", connection));
  const bool restoration = in.class_name.ends_with("ForImageSuperResolution");
  const Scope root = restoration ? Scope("swin2sr") : Scope();
  // The image is padded to a multiple of the window before the first convolution (check_image_size).
  const std::int64_t image = in.image_size(configured);
  const std::int64_t padded = (image + s.window - 1) / s.window * s.window;

  auto pixels = b.input({channels, image, image}, "pixels");
  Value first{pixels.node, {channels, padded, padded}};
  first = conv3x3(b, first, "First_Convolution", root / "first_convolution", s.embed);
  const Scope emb = root / "embeddings";
  auto x = conv2d(b, first, "Patch_Embed",
                  {.module = emb / "patch_embeddings" / "projection", .in = s.embed, .out = s.embed, .kernel = patch,
                   .stride = patch});
  const std::int64_t grid_h = x.shape[1], grid_w = x.shape[2];
  x = norm(b, Value{x.node, {grid_h * grid_w, s.embed}}, "Patch_Embed_LayerNorm",
           {emb / "patch_embeddings" / "layernorm"});
  if (c.flag({"use_absolute_embeddings"}, false)) {
    x = b.node(NodeType::LearnedPosEmbed, "Position_Embedding", x.shape, {x}, emb);
    const std::int64_t table = (configured / patch) * (configured / patch);
    b.parameter(x, emb("position_embeddings"), {1, table + 1, s.embed}, graph::TensorRole::Embedding);
    if (grid_h * grid_w != table)
      b.fail(x, fmt::format("position_embeddings hold {} patches; the image makes {}", table, grid_h * grid_w));
  }

  const std::int64_t w = swin::window_side(s.window, grid_h, grid_w);
  std::int64_t block = 0;
  for (std::size_t i = 0; i < s.depths.size(); ++i) {
    const Scope stage = root / "encoder" / "stages" / static_cast<std::int64_t>(i);
    const Value stage_input = x;
    for (std::int64_t j = 0; j < s.depths[i]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      x = swinv2::layer(b, x, s,
                        {.dim = s.embed, .heads = s.heads[i], .window = w, .grid_h = grid_h, .grid_w = grid_w,
                         .stage = i, .first = j == 0},
                        stage / "layers" / j, block);
    }
    b.set_block(-1);
    const std::string name = fmt::format("Stage_{}", i);
    Value map{x.node, {s.embed, grid_h, grid_w}};
    if (connection == "1conv") {
      map = conv3x3(b, map, name + "_Conv", stage / "conv", s.embed);
    } else {
      map = conv3x3(b, map, name + "_Conv_0", stage / "conv" / 0, s.embed / 4, "leaky_relu");
      map = conv2d(b, map, name + "_Conv_2", {.module = stage / "conv" / 2, .in = s.embed / 4, .out = s.embed / 4});
      b.at(map).activation = "leaky_relu";
      map = conv3x3(b, map, name + "_Conv_4", stage / "conv" / 4, s.embed);
    }
    map = conv2d(b, map, name + "_Patch_Embed",
                 {.module = stage / "patch_embed" / "projection", .in = s.embed, .out = s.embed, .kernel = patch,
                  .stride = patch});
    x = add(b, Value{map.node, {grid_h * grid_w, s.embed}}, stage_input, name + "_Residual");
  }
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  Value body = conv3x3(b, Value{x.node, {s.embed, grid_h, grid_w}}, "Conv_After_Body", root / "conv_after_body",
                       s.embed);
  body = add(b, body, first, "Body_Residual");
  if (!restoration) return body;

  const std::string upsampler = c.text({"upsampler"}, "pixelshuffle");
  const std::int64_t upscale = c.dim({"upscale"}, 2);
  const Scope up("upsample");
  if (upsampler == "pixelshuffle") {
    auto h = conv3x3(b, body, "Conv_Before_Upsample", up / "conv_before_upsample", kFeatures, "leaky_relu");
    if ((upscale & (upscale - 1)) == 0) {
      for (std::int64_t i = 0; (std::int64_t{1} << i) < upscale; ++i)
        h = pixel_shuffle(conv3x3(b, h, fmt::format("Upsample_Conv_{}", i),
                                  up / "upsample" / fmt::format("convolution_{}", i), 4 * kFeatures),
                          2);
    } else if (upscale == 3) {
      h = pixel_shuffle(conv3x3(b, h, "Upsample_Conv", up / "upsample" / "convolution", 9 * kFeatures), 3);
    } else {
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'upscale'", c.origin()),
                  fmt::format("{} is neither a power of 2 nor 3", upscale));
    }
    return conv3x3(b, h, "Final_Convolution", up / "final_convolution", channels_out);
  }
  if (upsampler == "pixelshuffledirect")
    return pixel_shuffle(conv3x3(b, body, "Upsample_Conv", up / "conv", upscale * upscale * channels_out), upscale);
  if (upsampler == "nearest+conv") {
    if (upscale != 4)
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'upscale'", c.origin()),
                  "the nearest+conv upsampler supports only 4");
    auto h = conv3x3(b, body, "Conv_Before_Upsample", up / "conv_before_upsample", kFeatures, "leaky_relu");
    h = resize(b, h, "Upsample_Nearest_1", 2 * h.shape[1], 2 * h.shape[2]);
    h = conv3x3(b, h, "Conv_Up1", up / "conv_up1", kFeatures, "leaky_relu");
    h = resize(b, h, "Upsample_Nearest_2", 2 * h.shape[1], 2 * h.shape[2]);
    h = conv3x3(b, h, "Conv_Up2", up / "conv_up2", kFeatures, "leaky_relu");
    h = conv3x3(b, h, "Conv_HR", up / "conv_hr", kFeatures, "leaky_relu");
    return conv3x3(b, h, "Final_Convolution", up / "final_convolution", channels_out);
  }
  if (upsampler == "pixelshuffle_aux")
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'upsampler'", c.origin()),
                "the pixelshuffle_aux upsampler (it also reads a bicubic upsampling of the image) is not built");
  // Denoising and JPEG artefact removal: one convolution back to the image's channels.
  return conv3x3(b, body, "Final_Convolution", Scope("final_convolution"), channels_out);
}

}  // namespace
}  // namespace swin2sr_impl

const Family& swin2sr_family() {
  static const Family family{"swin2sr", "models/swin2sr/modeling_swin2sr.py",
                             classes("Swin2SR", {{"ForImageSuperResolution", Head::PreTraining}}), swin2sr_impl::build};
  return family;
}

}  // namespace neurarch::families
