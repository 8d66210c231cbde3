// Swin Transformer (models/swin/modeling_swin.py, transformers 4.47.1): a patch_size-stride conv stem (the image
// padded to a multiple of the patch) with a LayerNorm, then stages of pre-norm layers whose self-attention runs
// inside non-overlapping window_size x window_size windows (every second layer shifted by half a window), with a
// learned relative_position_bias_table [(2w-1)^2, heads] and a saved int64 relative_position_index [w^2, w^2]
// buffer per layer, both sized by the configured window. Between stages a patch merging (pad to even, 2x2
// neighbours concatenated -> LayerNorm(4C) -> bias-free Linear to 2C) halves the grid. When a stage's grid is no
// larger than the window, the window shrinks to the grid and the shift is dropped. The model ends with a
// LayerNorm and an average over the tokens (SwinModel's pooler; the classifier reads it).
#include <fmt/format.h>

#include "families/config_lists.hpp"
#include "families/family.hpp"
#include "families/swin_common.hpp"

namespace neurarch::families {
namespace swin {

using namespace blocks;

Value model(const BuildInput& in, GraphBuilder& b, const ModelSpec& spec) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t patch = c.dim({"patch_size"}, 4);
  const std::int64_t embed = c.dim({"embed_dim"}, 96);
  const auto depths = size_list(c, "depths", {2, 2, 6, 2});
  const auto heads = size_list(c, "num_heads", {3, 6, 12, 24});
  require_length(c, "num_heads", heads, depths.size());
  const std::int64_t window = c.dim({"window_size"}, 7);
  const double mlp_ratio = c.number({"mlp_ratio"}, 4.0);
  const bool qkv_bias = c.flag({"qkv_bias"}, true);
  const double hidden_dropout = c.number({"hidden_dropout_prob"}, 0.0);
  const double attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.0);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const std::int64_t configured_image = c.dim({"image_size"}, 224);

  const Scope root = in.head == Head::Base ? Scope() : Scope("swin");
  auto pixels = b.input({channels, in.image_size(configured_image), in.image_size(configured_image)}, "pixels");
  auto [x, grid_h, grid_w] = swin::embed(b, pixels, root / "embeddings",
                                         {.channels = channels, .patch = patch, .dim = embed,
                                          .configured_image = configured_image,
                                          .image = in.image_size(configured_image),
                                          .absolute = c.flag({"use_absolute_embeddings"}, false),
                                          .dropout = hidden_dropout});

  std::int64_t dim = embed;
  std::int64_t block = 0;
  for (std::size_t s = 0; s < depths.size(); ++s) {
    const Scope stage = root / "encoder" / "layers" / static_cast<std::int64_t>(s);
    const std::int64_t w = swin::window_side(window, grid_h, grid_w);
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const Scope l = stage / "blocks" / j;
      const Scope attn = l / "attention";
      const Scope self = attn / "self";
      BlockNames n{block};
      auto h = norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "layernorm_before"});
      h = attention(b, h, n.attention(),
                    {.hidden = dim, .heads = heads[s], .module = attn, .q = self / "query", .k = self / "key",
                     .v = self / "value", .o = attn / "output" / "dense", .qkv_bias = qkv_bias,
                     .dropout = attention_dropout, .output_dropout = hidden_dropout});
      swin::attend_in_windows(b, h, w, grid_h, grid_w, s, j == 0);
      b.parameter(h, self("relative_position_bias_table"), {(2 * window - 1) * (2 * window - 1), heads[s]});
      b.buffer(h, self("relative_position_index"), {window * window, window * window}, DType::I64);
      auto residual = add(b, h, x, n.add(1));
      h = norm(b, residual, n.norm(2, NormKind::LayerNorm), {l / "layernorm_after"});
      h = feed_forward(b, h, n.ffn(),
                       {.hidden = dim, .intermediate = static_cast<std::int64_t>(mlp_ratio * static_cast<double>(dim)),
                        .activation = act, .module = l, .up = l / "intermediate" / "dense",
                        .down = l / "output" / "dense", .output_dropout = hidden_dropout});
      x = add(b, h, residual, n.add(2));
    }
    b.set_block(-1);
    if (s + 1 < depths.size()) {
      const Scope down = stage / "downsample";
      grid_h = swin::ceil_div(grid_h, 2);
      grid_w = swin::ceil_div(grid_w, 2);
      auto merged = norm(b, Value{x.node, {grid_h * grid_w, 4 * dim}}, fmt::format("Merge_LayerNorm_{}", s),
                         {down / "norm"});
      x = dense(b, merged, fmt::format("Merge_Reduction_{}", s), down / "reduction", 4 * dim, 2 * dim, false);
      dim *= 2;
    }
  }
  if (spec.final_norm) x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  if (in.head == Head::Base) return x;
  // The pooler averages the tokens (no parameters); the classifier reads that mean.
  return classifier(b, Value{x.node, {dim}}, "Classifier", Scope("classifier"), dim, in.num_labels(), true);
}

}  // namespace swin

namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) { return swin::model(in, b); }
}  // namespace

const Family& swin_family() {
  static const Family family{"swin", "models/swin/modeling_swin.py",
                             {{"SwinModel", Head::Base}, {"SwinForImageClassification", Head::ImageClassification}},
                             build};
  return family;
}

}  // namespace neurarch::families
