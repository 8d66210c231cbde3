// Swin Transformer V2 (models/swinv2/modeling_swinv2.py, transformers 4.47.1): Swin's patch embedding, window
// partition and stages, with three changes in each layer and one in patch merging. Attention is cosine
// attention scaled by a learned per-head logit_scale [heads, 1, 1], with a bias produced by a small MLP
// (continuous_position_bias_mlp: Linear(2, 512) -> ReLU -> bias-free Linear(512, heads)) from log-spaced
// relative coordinates; the coordinate table and index are non-persistent buffers, so nothing is saved for them
// and no tensor depends on the window. The key projection has no bias. Layers are post-norm inside the residual
// (x + LN(attn(x)), then h + LN(mlp(h))), and patch merging reduces 4C -> 2C before its LayerNorm (over 2C).
// The reference has only the eager attention path, so the score matrices are kept.
#include <fmt/format.h>

#include "families/family.hpp"
#include "families/swinv2.hpp"

namespace neurarch::families {

using namespace blocks;

namespace swinv2_impl {
namespace {
// The width of the hidden layer of the continuous position bias MLP (fixed in the reference).
constexpr std::int64_t kPositionBiasHidden = 512;
}  // namespace
}  // namespace swinv2_impl
using namespace swinv2_impl;

Value swinv2::layer(GraphBuilder& b, const Value& x, const swin::Settings& settings, const LayerSpec& spec,
                    const Scope& l, std::int64_t block) {
  const std::int64_t dim = spec.dim;
  const Scope attn = l / "attention";
  const Scope self = attn / "self";
  BlockNames n{block};
  auto h = attention(b, x, n.attention(),
                     {.hidden = dim, .heads = spec.heads, .module = attn, .q = self / "query", .k = self / "key",
                      .v = self / "value", .o = attn / "output" / "dense", .qkv_bias = settings.qkv_bias,
                      .dropout = settings.attention_dropout, .output_dropout = settings.hidden_dropout,
                      .k_bias = false});
  swin::attend_in_windows(b, h, spec.window, spec.grid_h, spec.grid_w, spec.stage, spec.first);
  b.at(h).attention->sdpa = false;
  b.parameter(h, self("logit_scale"), {spec.heads, 1, 1}, graph::TensorRole::Other);
  const Scope mlp = self / "continuous_position_bias_mlp";
  b.parameter(h, (mlp / 0)("weight"), {kPositionBiasHidden, 2}, graph::TensorRole::Linear, graph::Operand::Positions);
  b.parameter(h, (mlp / 0)("bias"), {kPositionBiasHidden}, graph::TensorRole::Bias);
  b.parameter(h, (mlp / 2)("weight"), {spec.heads, kPositionBiasHidden}, graph::TensorRole::Linear,
              graph::Operand::Positions);
  h = norm(b, h, n.norm(1, NormKind::LayerNorm), {l / "layernorm_before"});
  auto residual = add(b, h, x, n.add(1));
  h = feed_forward(b, residual, n.ffn(),
                   {.hidden = dim,
                    .intermediate = static_cast<std::int64_t>(settings.mlp_ratio * static_cast<double>(dim)),
                    .activation = settings.activation, .module = l, .up = l / "intermediate" / "dense",
                    .down = l / "output" / "dense", .output_dropout = settings.hidden_dropout});
  h = norm(b, h, n.norm(2, NormKind::LayerNorm), {l / "layernorm_after"});
  return add(b, h, residual, n.add(2));
}

namespace swinv2_impl {
namespace {

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const swin::Settings settings = swin::read_settings(c);
  const auto& [embed, depths, heads, window, mlp_ratio, qkv_bias, hidden_dropout, attention_dropout, act] = settings;
  const Scope root = in.head == Head::Base ? Scope() : Scope("swinv2");
  auto [x, grid_h, grid_w] = swin::stem(in, b, settings, root);

  std::int64_t dim = embed;
  std::int64_t block = 0;
  for (std::size_t s = 0; s < depths.size(); ++s) {
    const Scope stage = root / "encoder" / "layers" / static_cast<std::int64_t>(s);
    const std::int64_t w = swin::window_side(window, grid_h, grid_w);
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      x = swinv2::layer(b, x, settings,
                        {.dim = dim, .heads = heads[s], .window = w, .grid_h = grid_h, .grid_w = grid_w,
                         .stage = s, .first = j == 0},
                        stage / "blocks" / j, block);
    }
    b.set_block(-1);
    if (s + 1 < depths.size()) {
      const Scope down = stage / "downsample";
      grid_h = swin::ceil_div(grid_h, 2);
      grid_w = swin::ceil_div(grid_w, 2);
      // The 2x2 neighbours are concatenated (a view), reduced, then normalised.
      x = dense(b, Value{x.node, {grid_h * grid_w, 4 * dim}}, fmt::format("Merge_Reduction_{}", s),
                down / "reduction", 4 * dim, 2 * dim, false);
      dim *= 2;
      x = norm(b, x, fmt::format("Merge_LayerNorm_{}", s), {down / "norm"});
    }
  }
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  if (in.head == Head::Base) return x;
  // The pooler averages the tokens (no parameters); the classifier reads that mean.
  return classifier(b, Value{x.node, {dim}}, "Classifier", Scope("classifier"), dim, in.num_labels(), true);
}

}  // namespace
}  // namespace swinv2_impl

const Family& swinv2_family() {
  static const Family family{"swinv2", "models/swinv2/modeling_swinv2.py",
                             classes("Swinv2", {heads::ForImageClassification}), swinv2_impl::build};
  return family;
}

}  // namespace neurarch::families
