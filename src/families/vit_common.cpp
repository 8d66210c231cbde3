#include "families/vit_common.hpp"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace neurarch::families::vit {

using graph::NodeType;

Size2 read_size2(const Config& c, std::string_view key, Size2 fallback) {
  if (const auto* v = c.raw({key}); v && v->is_array()) {
    if (v->size() != 2 || !(*v)[0].is_number_integer() || !(*v)[1].is_number_integer() || (*v)[0].get<std::int64_t>() <= 0 ||
        (*v)[1].get<std::int64_t>() <= 0)
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                  "expected a positive int or a [height, width] pair");
    return {(*v)[0].get<std::int64_t>(), (*v)[1].get<std::int64_t>(), true};
  }
  if (fallback.pair && !c.has(key)) return fallback;
  std::int64_t side = c.dim({key}, fallback.h);
  return {side, side, false};
}

Geometry read_geometry(const BuildInput& in, Size2 default_image, std::int64_t default_patch) {
  Geometry g;
  g.channels = in.config.dim({"num_channels"}, 3);
  g.configured = read_size2(in.config, "image_size", default_image);
  g.patch = read_size2(in.config, "patch_size", {default_patch, default_patch, false});
  g.input = g.configured;
  if (in.requested_image_size) g.input = {*in.requested_image_size, *in.requested_image_size, false};
  return g;
}

Value pixel_stem(GraphBuilder& b, const Geometry& g, const Scope& projection, std::int64_t hidden,
                 std::int64_t extra_tokens) {
  auto pixels = b.input({g.channels, g.input.h, g.input.w}, "pixels");
  if (g.patch.h == g.patch.w)
    return blocks::patch_embed(b, pixels, "Patch_Embed", {projection, g.channels, hidden, g.patch.h, extra_tokens});
  // A rectangular kernel: the same Conv2d, which the square-patch block does not describe.
  auto out = b.node(NodeType::PatchEmbed, "Patch_Embed", {extra_tokens + g.input_patches(), hidden}, {pixels},
                    projection);
  b.parameter(out, projection("weight"), {hidden, g.channels, g.patch.h, g.patch.w}, graph::TensorRole::Conv);
  b.parameter(out, projection("bias"), {hidden}, graph::TensorRole::Bias);
  if (g.input.h < g.patch.h || g.input.w < g.patch.w)
    b.fail(out, fmt::format("image {}x{} is smaller than one {}x{} patch", g.input.h, g.input.w, g.patch.h, g.patch.w));
  return out;
}

void refuse_other_sizes(GraphBuilder& b, const Value& patch_embed, const Geometry& g, std::string_view family) {
  if (!g.input_differs()) return;
  b.fail(patch_embed,
         fmt::format("{} refuses a {}x{} image: its patch embedding expects the configured image_size {}x{} "
                     "unless forward() is called with interpolate_pos_encoding=True (which interpolates the {} "
                     "learned patch positions); run at --image-size {} or pass interpolate_pos_encoding=True",
                     family, g.input.h, g.input.w, g.configured.h, g.configured.w, g.configured_patches(),
                     g.configured.h));
}

Value position_table(GraphBuilder& b, const Value& x, const Scope& embeddings, std::int64_t rows, graph::Shape out) {
  auto pos = b.node(NodeType::LearnedPosEmbed, "Learned_Pos_Embed", std::move(out), {x}, embeddings);
  b.parameter(pos, embeddings("position_embeddings"), {1, rows, x.shape.back()}, graph::TensorRole::Embedding);
  return pos;
}

namespace vit_common_impl {
namespace {

// The keys ViTConfig and Dinov2Config share.
EncoderSpec read_shared_keys(const Config& c, const EncoderSpec& defaults) {
  EncoderSpec s = defaults;
  s.hidden = c.dim({"hidden_size"}, defaults.hidden);
  s.count = c.dim({"num_hidden_layers"}, defaults.count);
  s.heads = c.dim({"num_attention_heads"}, defaults.heads);
  s.activation = c.text({"hidden_act"}, defaults.activation);
  s.qkv_bias = c.flag({"qkv_bias"}, defaults.qkv_bias);
  return s;
}

}  // namespace
}  // namespace vit_common_impl
using namespace vit_common_impl;

EncoderSpec read_encoder(const Config& c, const EncoderSpec& defaults) {
  EncoderSpec s = vit_common_impl::read_shared_keys(c, defaults);
  s.intermediate = c.dim({"intermediate_size"}, defaults.intermediate);
  return s;
}

EncoderSpec read_dinov2_encoder(const Config& c, const EncoderSpec& defaults) {
  EncoderSpec s = vit_common_impl::read_shared_keys(c, defaults);
  s.swiglu = c.flag({"use_swiglu_ffn"}, defaults.swiglu);
  s.intermediate = static_cast<std::int64_t>(static_cast<double>(s.hidden) * c.number({"mlp_ratio"}, 4.0));
  if (s.swiglu) s.intermediate = (s.intermediate * 2 / 3 + 7) / 8 * 8;
  return s;
}

Value vit_layer(GraphBuilder& b, const Value& x, const EncoderSpec& s, std::int64_t index, std::int64_t block) {
  b.set_block(static_cast<int>(block));
  Scope l = s.layers / index;
  Scope attn = l / "attention";
  blocks::PreNormLayer layer;
  layer.norm1 = {l / "layernorm_before"};
  layer.attention = {.hidden = s.hidden, .heads = s.heads, .module = attn, .q = attn / "attention" / "query",
                     .k = attn / "attention" / "key", .v = attn / "attention" / "value",
                     .o = attn / "output" / "dense", .qkv_bias = s.qkv_bias};
  layer.norm2 = {l / "layernorm_after"};
  layer.ffn = {.hidden = s.hidden, .intermediate = s.intermediate, .activation = s.activation, .module = l,
               .up = l / "intermediate" / "dense", .down = l / "output" / "dense"};
  auto out = blocks::pre_norm_layer(b, x, block, layer);
  b.set_block(-1);
  return out;
}

Value vit_layers(GraphBuilder& b, Value x, const EncoderSpec& s) {
  for (std::int64_t i = 0; i < s.count; ++i) x = vit_layer(b, x, s, i, s.first_block + i);
  return x;
}

Value dinov2_layer(GraphBuilder& b, const Value& x, const EncoderSpec& s, std::int64_t index, std::int64_t block) {
  b.set_block(static_cast<int>(block));
  Scope l = s.layers / index;
  Scope attn = l / "attention";
  blocks::PreNormLayer layer;
  layer.norm1 = {l / "norm1"};
  layer.attention = {.hidden = s.hidden, .heads = s.heads, .module = attn, .q = attn / "attention" / "query",
                     .k = attn / "attention" / "key", .v = attn / "attention" / "value",
                     .o = attn / "output" / "dense", .qkv_bias = s.qkv_bias};
  layer.scale1 = l("layer_scale1.lambda1");
  layer.norm2 = {l / "norm2"};
  Scope mlp = l / "mlp";
  if (s.swiglu)
    layer.ffn = {.hidden = s.hidden, .intermediate = s.intermediate, .activation = "silu", .gated = true,
                 .module = mlp, .down = mlp / "weights_out", .gate_up = mlp / "weights_in"};
  else
    layer.ffn = {.hidden = s.hidden, .intermediate = s.intermediate, .activation = s.activation, .module = mlp,
                 .up = mlp / "fc1", .down = mlp / "fc2"};
  layer.scale2 = l("layer_scale2.lambda1");
  auto out = blocks::pre_norm_layer(b, x, block, layer);
  b.set_block(-1);
  return out;
}

Value dinov2_layers(GraphBuilder& b, Value x, const EncoderSpec& s) {
  for (std::int64_t i = 0; i < s.count; ++i) x = dinov2_layer(b, x, s, i, s.first_block + i);
  return x;
}

Value simmim_decoder(GraphBuilder& b, const Value& x, std::int64_t tokens, const Geometry& g, std::int64_t hidden,
                     std::int64_t stride) {
  auto side = static_cast<std::int64_t>(std::sqrt(static_cast<double>(tokens)));
  while (side * side > tokens) --side;
  while ((side + 1) * (side + 1) <= tokens) ++side;
  Scope conv = Scope("decoder") / 0;
  auto out = b.node(NodeType::Linear, "MIM_Decoder", {g.channels, side * stride, side * stride}, {x}, Scope("decoder"));
  b.parameter(out, conv("weight"), {stride * stride * g.channels, hidden, 1, 1}, graph::TensorRole::Conv);
  b.parameter(out, conv("bias"), {stride * stride * g.channels}, graph::TensorRole::Bias);
  if (side * side != tokens)
    b.fail(out, fmt::format("the decoder folds the {} patch tokens into a square grid, which needs a square number "
                            "of patches (a square image)",
                            tokens));
  return out;
}

}  // namespace neurarch::families::vit
