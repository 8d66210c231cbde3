// FocalNet (models/focalnet/modeling_focalnet.py, transformers 4.47.1): a patch_size-stride conv stem (the image
// padded to a multiple of the patch; use_conv_embed: a 7x7 stride-4 conv) + LayerNorm, then stages whose width
// is embed_dim x 2^i (hidden_sizes is only the backbone's metadata) of layers
//   x + gamma_1 * Modulation(LayerNorm(x)),  then  h + gamma_2 * MLP(LayerNorm(h))
// (use_post_layernorm moves the norms after the branches; gammas exist with use_layerscale). Focal modulation
// projects each position to q, a context and focal_level + 1 gates, runs the context through focal_level
// depthwise convs (kernel 2k + focal_window, GELU), sums them and a global GELU context weighted by the gates,
// mixes that with a 1x1 conv into a modulator that multiplies q, then projects out. Between stages a 2x2
// stride-2 conv (3x3 stride 2 with use_conv_embed) + LayerNorm halves the grid. The model ends in a LayerNorm
// and a token mean; the classifier reads it. The gated sum and the q x modulator product are modelled as
// LayerScale nodes reading both operands.
#include <fmt/format.h>

#include "families/config_lists.hpp"
#include "families/family.hpp"
#include "families/mix_transformer.hpp"

namespace neurarch::families {
namespace focalnet_impl {
namespace {

using namespace blocks;
using graph::NodeType;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// FocalNetPatchEmbeddings over a [C, H, W] map: padded to whole patches unless the conv overlaps.
Value patch_conv(GraphBuilder& b, const Value& map, const std::string& name, const Scope& module, std::int64_t in,
                 std::int64_t out, std::int64_t patch, bool conv_embed, bool stem) {
  if (conv_embed)
    return conv2d(b, map, name,
                  {.module = module / "projection", .in = in, .out = out, .kernel = stem ? 7 : 3, .stride = stem ? 4 : 2,
                   .padding = stem ? 2 : 1});
  const Value padded{map.node, {map.shape[0], ceil_div(map.shape[1], patch) * patch, ceil_div(map.shape[2], patch) * patch}};
  return conv2d(b, padded, name, {.module = module / "projection", .in = in, .out = out, .kernel = patch, .stride = patch});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t patch = c.dim({"patch_size"}, 4);
  const std::int64_t embed = c.dim({"embed_dim"}, 96);
  const bool conv_embed = c.flag({"use_conv_embed"}, false);
  const auto depths = size_list(c, "depths", {2, 2, 6, 2});
  const auto levels = size_list(c, "focal_levels", {2, 2, 2, 2});
  const auto windows = size_list(c, "focal_windows", {3, 3, 3, 3});
  require_length(c, "focal_levels", levels, depths.size());
  require_length(c, "focal_windows", windows, depths.size());
  const std::string act = c.text({"hidden_act"}, "gelu");
  const double mlp_ratio = c.number({"mlp_ratio"}, 4.0);
  const double dropout = c.number({"hidden_dropout_prob"}, 0.0);
  const bool layerscale = c.flag({"use_layerscale"}, false);
  const bool post_norm = c.flag({"use_post_layernorm"}, false);
  const bool post_norm_modulation = c.flag({"use_post_layernorm_in_modulation"}, false);
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 224));

  const Scope root = in.head == Head::Base ? Scope() : Scope("focalnet");
  const Scope emb = root / "embeddings";
  Value map = b.input({channels, image, image}, "pixels");
  map = patch_conv(b, map, "Patch_Embed", emb / "patch_embeddings", channels, embed, patch, conv_embed, true);
  std::int64_t h = map.shape[1], w = map.shape[2];
  Value x = norm(b, mix::as_tokens(map), "Embed_LayerNorm", {emb / "norm"});
  b.at(x).dropout = dropout;

  std::int64_t dim = embed;
  std::int64_t block = 0;
  for (std::size_t s = 0; s < depths.size(); ++s) {
    const Scope stage = root / "encoder" / "stages" / static_cast<std::int64_t>(s);
    const std::int64_t level = levels[s];
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const Scope l = stage / "layers" / j;
      const Scope mod = l / "modulation";
      BlockNames n{block};
      auto name = [&](const char* what) { return fmt::format("{}_{}", what, block); };
      Value hmod = post_norm ? x : norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "norm1"});
      auto projected = dense(b, hmod, name("Modulation_In"), mod / "projection_in", dim, 2 * dim + level + 1, true);
      Value ctx = mix::as_map(Value{projected.node, {h * w, dim}}, h, w);
      for (std::int64_t k = 0; k < level; ++k) {
        const std::int64_t kernel = 2 * k + windows[s];
        ctx = conv2d(b, ctx, fmt::format("Focal_Conv_{}_{}", block, k),
                     {.module = mod / "focal_layers" / k / 0, .in = dim, .out = dim, .kernel = kernel,
                      .padding = kernel / 2, .groups = dim, .bias = false});
        b.at(ctx).activation = "gelu";
      }
      // The gated sum of every level's context and the global context.
      ctx = b.node(NodeType::LayerScale, name("Focal_Gated_Sum"), ctx.shape, {ctx, projected});
      auto modulator = conv2d(b, ctx, name("Modulation_Context"),
                              {.module = mod / "projection_context", .in = dim, .out = dim});
      Value out = b.node(NodeType::LayerScale, name("Modulation_Product"), {h * w, dim}, {modulator, projected});
      if (post_norm_modulation) out = norm(b, out, name("Modulation_LayerNorm"), {mod / "layernorm"});
      out = dense(b, out, name("Modulation_Out"), mod / "projection_out", dim, dim, true);
      b.at(out).dropout = dropout;
      if (post_norm) out = norm(b, out, n.norm(1, NormKind::LayerNorm), {l / "norm1"});
      if (layerscale) out = layer_scale(b, out, n.scale(1), l("gamma_1"));
      auto residual = add(b, out, x, n.add(1));
      Value m = post_norm ? residual : norm(b, residual, n.norm(2, NormKind::LayerNorm), {l / "norm2"});
      m = feed_forward(b, m, n.ffn(),
                       {.hidden = dim, .intermediate = static_cast<std::int64_t>(static_cast<double>(dim) * mlp_ratio),
                        .activation = act, .module = l / "mlp", .up = l / "mlp" / "fc1", .down = l / "mlp" / "fc2",
                        .output_dropout = dropout, .inner_dropout = dropout});
      if (post_norm) m = norm(b, m, n.norm(2, NormKind::LayerNorm), {l / "norm2"});
      if (layerscale) m = layer_scale(b, m, n.scale(2), l("gamma_2"));
      x = add(b, m, residual, n.add(2));
    }
    b.set_block(-1);
    if (s + 1 < depths.size()) {
      const Scope down = stage / "downsample";
      map = patch_conv(b, mix::as_map(x, h, w), fmt::format("Downsample_Conv_{}", s), down, dim, 2 * dim, 2,
                       conv_embed, false);
      h = map.shape[1];
      w = map.shape[2];
      dim *= 2;
      x = norm(b, mix::as_tokens(map), fmt::format("Downsample_LayerNorm_{}", s), {down / "norm"});
    }
  }
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  if (in.head == Head::Base) return x;
  // The pooler averages the tokens (no parameters); the classifier reads that mean.
  return classifier(b, Value{x.node, {dim}}, "Classifier", Scope("classifier"), dim, in.num_labels(), true);
}

}  // namespace
}  // namespace focalnet_impl

const Family& focalnet_family() {
  static const Family family{"focalnet", "models/focalnet/modeling_focalnet.py",
                             classes("FocalNet", {heads::ForImageClassification}), focalnet_impl::build};
  return family;
}

}  // namespace neurarch::families
