// Swin Transformer (models/swin/modeling_swin.py, transformers 4.47.1): a patch_size-stride conv stem (the image
// padded to a multiple of the patch) with a LayerNorm, then stages of pre-norm layers whose self-attention runs
// inside non-overlapping window_size x window_size windows (every second layer shifted by half a window), with a
// learned relative_position_bias_table [(2w-1)^2, heads] and a saved int64 relative_position_index [w^2, w^2]
// buffer per layer, both sized by the configured window. Between stages a patch merging (pad to even, 2x2
// neighbours concatenated -> LayerNorm(4C) -> bias-free Linear to 2C) halves the grid. When a stage's grid is no
// larger than the window, the window shrinks to the grid and the shift is dropped. The model ends with a
// LayerNorm and an average over the tokens (SwinModel's pooler; the classifier reads it).
#include <fmt/format.h>

#include "families/family.hpp"
#include "families/swin_common.hpp"

namespace neurarch::families {
namespace swin {

using namespace blocks;

Stages stages(GraphBuilder& b, const Value& input, std::int64_t grid_h, std::int64_t grid_w, const Settings& settings,
              const Scope& layers, const StageOptions& options) {
  const auto& [embed, depths, heads, window, mlp_ratio, qkv_bias, hidden_dropout, attention_dropout, act] = settings;
  Value x = input;
  std::int64_t dim = embed;
  std::int64_t block = 0;
  for (std::size_t s = 0; s < depths.size(); ++s) {
    const Scope stage = layers / static_cast<std::int64_t>(s);
    const std::int64_t w = options.shrink_window ? swin::window_side(window, grid_h, grid_w) : window;
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
      b.parameter(h, self("relative_position_bias_table"), {(2 * window - 1) * (2 * window - 1), heads[s]}, graph::TensorRole::Embedding);
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
    if (options.stage_maps) options.stage_maps->push_back(Value{x.node, {dim, grid_h, grid_w}});
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
  return {x, dim, grid_h, grid_w};
}

Value model(const BuildInput& in, GraphBuilder& b, const ModelSpec& spec) {
  const Config& c = in.config;
  const swin::Settings settings = swin::read_settings(c);
  const Scope root = in.head == Head::Base ? Scope() : Scope("swin");
  auto [embedded, grid_h, grid_w] = swin::stem(in, b, settings, root);
  auto [x, dim, last_h, last_w] = stages(b, embedded, grid_h, grid_w, settings, root / "encoder" / "layers",
                                          {.shrink_window = spec.shrink_window, .stage_maps = spec.stage_maps});
  if (spec.final_norm) x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  if (in.head == Head::Base) return x;
  // The pooler averages the tokens (no parameters); the classifier reads that mean.
  return classifier(b, Value{x.node, {dim}}, "Classifier", Scope("classifier"), dim, in.num_labels(), true);
}

}  // namespace swin

namespace swin_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) { return swin::model(in, b); }
}  // namespace
}  // namespace swin_impl

const Family& swin_family() {
  static const Family family{"swin", "models/swin/modeling_swin.py",
                             classes("Swin", {heads::ForImageClassification}), swin_impl::build};
  return family;
}

}  // namespace neurarch::families
