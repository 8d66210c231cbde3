#include "families/swin_common.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "families/config_lists.hpp"

namespace neurarch::families::swin {

using namespace blocks;
using graph::NodeType;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

Embedded embed(GraphBuilder& b, const Value& pixels, const Scope& emb, const EmbedSpec& s) {
  const Scope projection = emb / "patch_embeddings" / "projection";
  Embedded out;
  out.grid_h = ceil_div(s.image, s.patch);
  out.grid_w = ceil_div(s.image, s.patch);
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {out.grid_h * out.grid_w, s.dim}, {pixels}, projection);
  b.parameter(x, projection("weight"), {s.dim, s.channels, s.patch, s.patch}, graph::TensorRole::Conv);
  b.parameter(x, projection("bias"), {s.dim}, graph::TensorRole::Bias);
  x = norm(b, x, "Embed_LayerNorm", {emb / "norm"});
  if (s.absolute) {
    // Sized for the configured image (plus one row the reference allocates); another size does not add up.
    const std::int64_t rows = ceil_div(s.configured_image, s.patch) * ceil_div(s.configured_image, s.patch) + 1;
    auto pos = b.node(NodeType::LearnedPosEmbed, "Learned_Pos_Embed", x.shape, {x}, emb);
    b.parameter(pos, emb("position_embeddings"), {1, rows, s.dim}, graph::TensorRole::Embedding);
    if (s.image != s.configured_image)
      b.fail(pos, fmt::format("absolute position embeddings are sized for a {}-pixel image, not {}",
                              s.configured_image, s.image));
    x = pos;
  }
  b.at(x).dropout = s.dropout;
  out.x = x;
  return out;
}

std::int64_t window_side(std::int64_t window, std::int64_t grid_h, std::int64_t grid_w) {
  return std::min({window, grid_h, grid_w});
}

void attend_in_windows(GraphBuilder& b, const Value& attn, std::int64_t w, std::int64_t grid_h, std::int64_t grid_w,
                       std::size_t stage, bool first) {
  // Attention runs in windows of w x w tokens, batched inside the graph.
  b.at(attn).attention->query_len = w * w;
  b.at(attn).attention->kv_len = w * w;
  const std::int64_t windows = ceil_div(grid_h, w) * ceil_div(grid_w, w);
  if (first && windows * w * w != grid_h * grid_w)
    b.note(fmt::format("stage {}: the {}x{} token grid is padded to whole {}x{} windows", stage, grid_h, grid_w, w, w));
}

Settings read_settings(const Config& c) {
  Settings s{.embed = c.dim({"embed_dim"}, 96),
             .depths = size_list(c, "depths", {2, 2, 6, 2}),
             .heads = size_list(c, "num_heads", {3, 6, 12, 24}),
             .window = c.dim({"window_size"}, 7),
             .mlp_ratio = c.number({"mlp_ratio"}, 4.0),
             .qkv_bias = c.flag({"qkv_bias"}, true),
             .hidden_dropout = c.number({"hidden_dropout_prob"}, 0.0),
             .attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.0),
             .activation = c.text({"hidden_act"}, "gelu")};
  require_length(c, "num_heads", s.heads, s.depths.size());
  return s;
}

Embedded stem(const BuildInput& in, GraphBuilder& b, const Settings& s, const Scope& root) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t configured_image = c.dim({"image_size"}, 224);
  const std::int64_t image = in.image_size(configured_image);
  auto pixels = b.input({channels, image, image}, "pixels");
  return embed(b, pixels, root / "embeddings",
               {.channels = channels, .patch = c.dim({"patch_size"}, 4), .dim = s.embed,
                .configured_image = configured_image, .image = image,
                .absolute = c.flag({"use_absolute_embeddings"}, false), .dropout = s.hidden_dropout});
}

}  // namespace neurarch::families::swin
