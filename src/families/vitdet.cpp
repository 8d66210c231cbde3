// ViTDet (models/vitdet/modeling_vitdet.py, transformers 4.47.1): a plain ViT over the patch map with no CLS
// token and no final norm. Absolute positions (sized for pretrain_image_size, one unused CLS row, interpolated
// to the input grid) when use_absolute_position_embeddings; a fused qkv projection; layers listed in
// window_block_indices attend inside window_size x window_size windows (the grid padded to whole windows),
// the others globally; use_relative_position_embeddings adds decomposed rel_pos_h / rel_pos_w tables sized by
// the window or the configured grid; layers in residual_block_indices end with a 1x1 -> 3x3 -> 1x1 bottleneck
// (bias-free convs, channels-first LayerNorms). The attention has only the eager path. VitDetModel returns the
// [hidden, H / patch, W / patch] map.
#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/convnext_common.hpp"
#include "families/family.hpp"
#include "families/vit_common.hpp"
#include "families/vitdet.hpp"

namespace neurarch::families {
namespace vitdet_impl {
namespace {

using namespace blocks;

bool listed(const std::vector<std::int64_t>& list, std::int64_t i) {
  return std::find(list.begin(), list.end(), i) != list.end();
}

}  // namespace
}  // namespace vitdet_impl
using namespace vitdet_impl;

vitdet::Output vitdet::model(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  const auto intermediate = static_cast<std::int64_t>(static_cast<double>(hidden) * c.number({"mlp_ratio"}, 4.0));
  const std::string act = c.text({"hidden_act"}, "gelu");
  const double dropout = c.number({"dropout_prob"}, 0.0);
  const bool qkv_bias = c.flag({"qkv_bias"}, true);
  const bool absolute = c.flag({"use_absolute_position_embeddings"}, true);
  const bool relative = c.flag({"use_relative_position_embeddings"}, false);
  const std::int64_t window = c.integer({"window_size"}, 0);  // 0: global attention everywhere
  const auto windowed = index_list(c, "window_block_indices");
  const auto residual = index_list(c, "residual_block_indices");
  const vit::Geometry g = vit::read_geometry(in, {224, 224, false}, 16);
  const vit::Size2 pretrain = vit::read_size2(c, "pretrain_image_size", {224, 224, false});
  const std::int64_t head_dim = hidden / heads;

  Value x = vit::pixel_stem(b, g, Scope("embeddings") / "projection", hidden, 0);
  const Value pixels{b.at(x).inputs.front(), {g.channels, g.input.h, g.input.w}};
  if (absolute) {
    // One CLS row is stored and dropped; the rest is a square table resized (bicubic) to the input grid.
    const std::int64_t rows = (pretrain.h / g.patch.h) * (pretrain.w / g.patch.w) + 1;
    x = vit::position_table(b, x, Scope("embeddings"), rows, x.shape);
  }
  const std::int64_t grid_h = g.input.h / g.patch.h, grid_w = g.input.w / g.patch.w;
  const std::int64_t configured_h = g.configured.h / g.patch.h, configured_w = g.configured.w / g.patch.w;

  bool padded_noted = false;
  for (std::int64_t i = 0; i < layers; ++i) {
    const Scope l = Scope("encoder") / "layer" / i;
    const Scope attn = l / "attention";
    const bool in_windows = window > 0 && listed(windowed, i);
    PreNormLayer layer;
    layer.norm1 = {l / "norm1"};
    layer.attention = {.hidden = hidden, .heads = heads, .module = attn, .o = attn / "proj", .qkv = attn / "qkv",
                       .qkv_bias = qkv_bias};
    layer.norm2 = {l / "norm2"};
    layer.ffn = {.hidden = hidden, .intermediate = intermediate, .activation = act, .module = l / "mlp",
                 .up = l / "mlp" / "fc1", .down = l / "mlp" / "fc2", .output_dropout = dropout,
                 .inner_dropout = dropout};
    b.set_block(static_cast<int>(i));
    x = pre_norm_layer(b, x, i, layer);
    auto& nodes = b.graph().nodes;
    // The layer's attention: the last node with attention attributes (its name carries any nest's label).
    const auto found = std::find_if(nodes.rbegin(), nodes.rend(),
                                    [](const graph::Node& n) { return n.attention.has_value(); });
    const Value attention{found->index, found->out};
    b.at(attention).attention->sdpa = false;
    if (in_windows) {
      b.at(attention).attention->query_len = window * window;
      b.at(attention).attention->kv_len = window * window;
      if (!padded_noted && (grid_h % window != 0 || grid_w % window != 0)) {
        b.note(fmt::format("the {}x{} token grid is padded to whole {}x{} windows", grid_h, grid_w, window, window));
        padded_noted = true;
      }
    }
    if (relative) {
      const std::int64_t rh = in_windows ? window : configured_h, rw = in_windows ? window : configured_w;
      b.parameter(attention, attn("rel_pos_h"), {2 * rh - 1, head_dim}, graph::TensorRole::Other);
      b.parameter(attention, attn("rel_pos_w"), {2 * rw - 1, head_dim}, graph::TensorRole::Other);
    }
    if (listed(residual, i)) {
      const Scope r = l / "residual";
      const std::int64_t bottleneck = hidden / 2;
      const Value map{x.node, {hidden, grid_h, grid_w}};
      Value h = conv2d(b, map, fmt::format("Residual_Conv1_{}", i),
                       {.module = r / "conv1", .in = hidden, .out = bottleneck, .kernel = 1, .bias = false});
      h = convnext::channels_first_norm(b, h, fmt::format("Residual_Norm1_{}", i), r / "norm1");
      b.at(h).activation = act;
      h = conv2d(b, h, fmt::format("Residual_Conv2_{}", i),
                 {.module = r / "conv2", .in = bottleneck, .out = bottleneck, .kernel = 3, .padding = 1, .bias = false});
      h = convnext::channels_first_norm(b, h, fmt::format("Residual_Norm2_{}", i), r / "norm2");
      b.at(h).activation = act;
      h = conv2d(b, h, fmt::format("Residual_Conv3_{}", i),
                 {.module = r / "conv3", .in = bottleneck, .out = hidden, .kernel = 1, .bias = false});
      h = convnext::channels_first_norm(b, h, fmt::format("Residual_Norm3_{}", i), r / "norm3");
      const Value sum = add(b, h, map, fmt::format("Residual_Add_{}", i));
      x = Value{sum.node, {grid_h * grid_w, hidden}};
    }
  }
  b.set_block(-1);
  return {.pixels = pixels, .map = Value{x.node, {hidden, grid_h, grid_w}}};
}

namespace vitdet_impl {
namespace {
Value build(const BuildInput& in, GraphBuilder& b) { return vitdet::model(in, b).map; }
}  // namespace
}  // namespace vitdet_impl

const Family& vitdet_family() {
  static const Family family{"vitdet", "models/vitdet/modeling_vitdet.py", classes("VitDet"), vitdet_impl::build};
  return family;
}

}  // namespace neurarch::families
