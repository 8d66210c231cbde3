#include "families/sam_common.hpp"

#include <algorithm>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/convnext_common.hpp"

namespace neurarch::families::sam {

using namespace blocks;
using graph::NodeType;

std::vector<std::int64_t> layer_indexes(const Config& c, std::string_view key, std::vector<std::int64_t> fallback) {
  const auto* v = c.raw({key});
  if (!v) return fallback;
  if (!v->is_array())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key), "expected a list of layer indexes");
  std::vector<std::int64_t> out;
  for (const auto& e : *v) {
    if (!e.is_number_integer())
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                  fmt::format("expected integer layer indexes, found {}", e.dump()));
    out.push_back(e.get<std::int64_t>());
  }
  return out;
}

Value vision_encoder(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root,
                     std::optional<std::int64_t> mlp_dim_default) {
  return vision_encoder_states(in, b, c, root, mlp_dim_default).embedding;
}

EncoderStates vision_encoder_states(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root,
                                    std::optional<std::int64_t> mlp_dim_default) {
  EncoderStates out;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t output_channels = c.dim({"output_channels"}, 256);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t configured = c.dim({"image_size"}, 1024);
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  const std::string activation = c.text({"hidden_act"}, "gelu");
  const double attention_dropout = c.number({"attention_dropout"}, 0.0);
  const bool qkv_bias = c.flag({"qkv_bias"}, true);
  const double mlp_ratio = c.number({"mlp_ratio"}, 4.0);
  const bool absolute = c.flag({"use_abs_pos"}, true);
  const bool relative = c.flag({"use_rel_pos"}, true);
  const std::int64_t window = c.integer({"window_size"}, 14);
  const auto global = layer_indexes(c, "global_attn_indexes", {2, 5, 8, 11});
  const std::int64_t mlp_dim =
      c.has("mlp_dim") || mlp_dim_default ? c.dim({"mlp_dim"}, mlp_dim_default)
                                          : static_cast<std::int64_t>(static_cast<double>(hidden) * mlp_ratio);
  const std::int64_t head_dim = hidden / heads;

  const std::int64_t image = in.image_size(configured);
  const std::int64_t grid = image / patch;
  const std::int64_t table = configured / patch;
  auto pixels = b.input({channels, image, image}, "pixels");
  auto x = patch_embed(b, pixels, "Patch_Embed",
                       {.projection = root / "patch_embed" / "projection", .channels = channels, .dim = hidden,
                        .patch = patch});
  if (absolute) {
    auto positions = b.node(NodeType::LearnedPosEmbed, "Position_Embedding", x.shape, {x}, root);
    b.parameter(positions, root("pos_embed"), {1, table, table, hidden}, graph::TensorRole::Embedding);
    if (grid != table)
      b.fail(positions, fmt::format("pos_embed covers a {}x{} grid ({}-px images), the image makes {}x{}", table, table,
                                    configured, grid, grid));
    x = positions;
  }

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "layers" / i;
    const Scope attn = l / "attn";
    const bool windowed = window > 0 && std::find(global.begin(), global.end(), i) == global.end();
    const BlockNames n{i};
    auto h = norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "layer_norm1"});
    h = attention(b, h, n.attention(),
                  {.hidden = hidden, .heads = heads, .module = attn, .o = attn / "proj", .qkv = attn / "qkv",
                   .qkv_bias = qkv_bias, .dropout = attention_dropout});
    if (windowed) {
      // Each window_size x window_size window attends alone; the grid is padded to whole windows.
      b.at(h).attention->query_len = window * window;
      b.at(h).attention->kv_len = window * window;
    }
    if (relative) {
      const std::int64_t side = windowed ? window : table;
      b.parameter(h, attn("rel_pos_h"), {2 * side - 1, head_dim}, graph::TensorRole::Other);
      b.parameter(h, attn("rel_pos_w"), {2 * side - 1, head_dim}, graph::TensorRole::Other);
    }
    auto residual = add(b, h, x, n.add(1));
    h = norm(b, residual, n.norm(2, NormKind::LayerNorm), {l / "layer_norm2"});
    h = blocks::feed_forward(b, h, n.ffn(),
                     {.hidden = hidden, .intermediate = mlp_dim, .activation = activation, .module = l / "mlp",
                      .up = l / "mlp" / "lin1", .down = l / "mlp" / "lin2"});
    x = add(b, h, residual, n.add(2));
    if (!windowed) out.global_layers.push_back(x);
  }
  b.set_block(-1);

  // The layers run on [H, W, C]; the neck permutes to channels-first (a view).
  const Scope neck = root / "neck";
  Value map{x.node, {hidden, grid, grid}};
  map = conv2d(b, map, "Neck_Conv1",
               {.module = neck / "conv1", .in = hidden, .out = output_channels, .kernel = 1, .bias = false});
  map = convnext::channels_first_norm(b, map, "Neck_LayerNorm1", neck / "layer_norm1");
  map = conv2d(b, map, "Neck_Conv2",
               {.module = neck / "conv2", .in = output_channels, .out = output_channels, .kernel = 3, .padding = 1,
                .bias = false});
  out.embedding = convnext::channels_first_norm(b, map, "Neck_LayerNorm2", neck / "layer_norm2");
  return out;
}

}  // namespace neurarch::families::sam
