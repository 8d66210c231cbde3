#include "families/sam2_common.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/sam_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families::sam2 {

using namespace blocks;
using graph::NodeType;

namespace sam2_common_impl {
namespace {

// do_pool: a stride x stride max pool over the [h x w, C] tokens of an h x w grid.
Value pool_tokens(GraphBuilder& b, const Value& x, const std::string& name, std::int64_t stride, std::int64_t h,
                  std::int64_t w) {
  auto out = b.node(NodeType::Pool, name, {(h / stride) * (w / stride), x.shape[1]}, {x});
  b.at(out).spatial = graph::SpatialAttrs{stride, stride, stride, 0, 1, true};
  return out;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace
}  // namespace sam2_common_impl
using namespace sam2_common_impl;

std::vector<StageOutput> hiera_det(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root) {
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t hidden = c.dim({"hidden_size"}, 96);
  const vit::Size2 image_cfg = vit::read_size2(c, "image_size", {1024, 1024, true});
  const vit::Size2 kernel = vit::read_size2(c, "patch_kernel_size", {7, 7, true});
  const vit::Size2 stride = vit::read_size2(c, "patch_stride", {4, 4, true});
  const vit::Size2 padding = vit::read_size2(c, "patch_padding", {3, 3, true});
  const vit::Size2 query_stride = vit::read_size2(c, "query_stride", {2, 2, true});
  const vit::Size2 background = vit::read_size2(c, "window_positional_embedding_background_size", {7, 7, true});
  const std::int64_t query_pool_stages = c.integer({"num_query_pool_stages"}, 3);
  const auto blocks_per_stage = size_list(c, "blocks_per_stage", {1, 2, 7, 2});
  const auto widths = size_list(c, "embed_dim_per_stage", {96, 192, 384, 768});
  const auto heads = size_list(c, "num_attention_heads_per_stage", {1, 2, 4, 8});
  const auto windows = size_list(c, "window_size_per_stage", {8, 4, 14, 7});
  const auto global = sam::layer_indexes(c, "global_attention_blocks", {5, 7, 9});
  const double mlp_ratio = c.number({"mlp_ratio"}, 4.0);
  const std::string act = c.text({"hidden_act"}, "gelu");
  require_length(c, "embed_dim_per_stage", widths, blocks_per_stage.size());
  require_length(c, "num_attention_heads_per_stage", heads, blocks_per_stage.size());
  require_length(c, "window_size_per_stage", windows, blocks_per_stage.size());
  const std::int64_t image_h = in.requested_image_size ? *in.requested_image_size : image_cfg.h;
  const std::int64_t image_w = in.requested_image_size ? *in.requested_image_size : image_cfg.w;

  auto pixels = b.input({channels, image_h, image_w}, "pixels");
  auto map = conv2d(b, pixels, "Patch_Embed",
                    {.module = root / "patch_embed" / "projection", .in = channels, .out = hidden,
                     .kernel = kernel.w, .stride = stride.w, .padding = padding.w});
  // Rectangular kernels, strides or paddings are rare and not modelled (the Conv2d here is square).
  if (kernel.h != kernel.w || stride.h != stride.w || padding.h != padding.w)
    b.fail(map, "rectangular patch_kernel_size, patch_stride or patch_padding is not modelled");
  std::int64_t grid_h = map.shape[1], grid_w = map.shape[2];
  // The background table is interpolated to any grid; the window table is tiled over it.
  Value x = b.node(NodeType::LearnedPosEmbed, "Position_Embedding", {grid_h * grid_w, hidden}, {map}, root);
  b.parameter(x, root("pos_embed"), {1, hidden, background.h, background.w}, graph::TensorRole::Embedding);
  b.parameter(x, root("pos_embed_window"), {1, hidden, windows.front(), windows.front()}, graph::TensorRole::Embedding);
  if (hidden != widths.front())
    b.fail(x, fmt::format("hidden_size {} is not the first stage's width {}", hidden, widths.front()));
  if (query_stride.h != query_stride.w) b.fail(x, "a rectangular query_stride is not modelled");
  const std::int64_t pool = query_stride.h;

  std::vector<StageOutput> out;
  std::int64_t block = 0;
  for (std::size_t s = 0; s < blocks_per_stage.size(); ++s) {
    bool padding_noted = false;  // once a stage
    for (std::int64_t j = 0; j < blocks_per_stage[s]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const bool first = s > 0 && j == 0;
      const std::int64_t dim = first ? widths[s - 1] : widths[s];
      const std::int64_t dim_out = widths[s];
      std::int64_t window = first ? windows[s - 1] : windows[s];
      if (std::find(global.begin(), global.end(), block) != global.end()) window = 0;
      const bool pooled = s > 0 && static_cast<std::int64_t>(s) <= query_pool_stages && j == 0;
      const std::int64_t q = pooled ? pool : 1;
      const Scope l = root / "blocks" / block;
      const BlockNames n{block};

      auto normed = norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "layer_norm1"});
      Value residual = x;
      if (dim != dim_out) {
        residual = dense(b, normed, fmt::format("Residual_Projection_{}", block), l / "proj", dim, dim_out, true);
        if (pooled) residual = sam2_common_impl::pool_tokens(b, residual, fmt::format("Residual_Pool_{}", block), q, grid_h, grid_w);
      }
      // Windows of window x window tokens (the grid padded to whole windows); the pooled queries of a window
      // are (window / q)^2. Global blocks attend over the whole grid.
      const std::int64_t out_h = grid_h / q, out_w = grid_w / q;
      const std::int64_t count = window > 0 ? sam2_common_impl::ceil_div(grid_h, window) * sam2_common_impl::ceil_div(grid_w, window) : 1;
      const std::int64_t kv_len = window > 0 ? window * window : grid_h * grid_w;
      const std::int64_t q_len = window > 0 ? (window / q) * (window / q) : out_h * out_w;
      auto attn = b.node(NodeType::MultiHeadAttention, n.attention(), {out_h * out_w, dim_out}, {normed}, l / "attn");
      b.at(attn).attention = graph::AttentionAttrs{heads[s], heads[s], dim_out / heads[s], q_len, kv_len};
      b.at(attn).attention->fused_qkv = true;
      linear_tensors(b, attn, l / "attn" / "qkv", dim, 3 * dim_out, true);
      linear_tensors(b, attn, l / "attn" / "proj", dim_out, dim_out, true, graph::Operand::Inner);
      if (dim_out % heads[s] != 0) b.fail(attn, fmt::format("{} channels do not split into {} heads", dim_out, heads[s]));
      if (!padding_noted && count > 1 && count * window * window != grid_h * grid_w) {
        b.note(fmt::format("stage {}: the {}x{} token grid is padded to whole {}x{} windows", s, grid_h, grid_w,
                           window, window));
        padding_noted = true;
      }
      grid_h = out_h;
      grid_w = out_w;

      auto sum = add(b, attn, residual, n.add(1));
      auto m = norm(b, sum, n.norm(2, NormKind::LayerNorm), {l / "layer_norm2"});
      m = feed_forward(b, m, n.ffn(),
                       {.hidden = dim_out,
                        .intermediate = static_cast<std::int64_t>(static_cast<double>(dim_out) * mlp_ratio),
                        .activation = act, .module = l / "mlp", .up = l / "mlp" / "proj_in",
                        .down = l / "mlp" / "proj_out"});
      x = add(b, m, sum, n.add(2));
    }
    out.push_back({x, grid_h, grid_w});
  }
  b.set_block(-1);
  return out;
}

std::vector<Value> vision_model(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root) {
  const auto stages = hiera_det(in, b, c.child("backbone_config"), root / "backbone");
  const auto channel_list = size_list(c, "backbone_channel_list", {768, 384, 192, 96});
  const std::int64_t fpn = c.dim({"fpn_hidden_size"}, 256);
  const std::int64_t kernel = c.dim({"fpn_kernel_size"}, 1);
  const std::int64_t stride = c.dim({"fpn_stride"}, 1);
  const std::int64_t padding = c.integer({"fpn_padding"}, 0);
  const auto top_down = sam::layer_indexes(c, "fpn_top_down_levels", {2, 3});
  const std::int64_t levels = c.dim({"num_feature_levels"}, 3);
  require_length(c, "backbone_channel_list", channel_list, stages.size());

  // Top-down, from the deepest stage end (convs.0) to the finest.
  const auto n = static_cast<std::int64_t>(stages.size()) - 1;
  std::vector<Value> fpn_levels;  // deepest first, as the neck returns them
  Value previous;
  for (std::int64_t i = n; i >= 0; --i) {
    const auto& stage = stages[static_cast<std::size_t>(i)];
    const std::int64_t in_channels = channel_list[static_cast<std::size_t>(n - i)];
    Value map{stage.tokens.node, {stage.tokens.shape[1], stage.grid_h, stage.grid_w}};
    auto lateral = conv2d(b, map, fmt::format("FPN_Lateral_{}", i),
                          {.module = root / "neck" / "convs" / (n - i), .in = in_channels, .out = fpn,
                           .kernel = kernel, .stride = stride, .padding = padding});
    if (std::find(top_down.begin(), top_down.end(), i) == top_down.end() || i == n) {
      previous = lateral;
    } else {
      auto up = resize(b, previous, fmt::format("FPN_Upsample_{}", i), 2 * previous.shape[1], 2 * previous.shape[2]);
      previous = add(b, lateral, up, fmt::format("FPN_Add_{}", i));
      if (up.shape != lateral.shape) b.fail(previous, "the upsampled coarser level is not the lateral's size");
    }
    fpn_levels.push_back(previous);
  }
  if (levels > static_cast<std::int64_t>(fpn_levels.size()))
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'num_feature_levels'", c.origin()),
                fmt::format("{} levels asked of a {}-stage backbone", levels, fpn_levels.size()));
  return {fpn_levels.rbegin(), fpn_levels.rbegin() + levels};
}

}  // namespace neurarch::families::sam2
