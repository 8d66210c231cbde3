#include "families/qwen2_vl_common.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/clip_common.hpp"
#include "families/llava_common.hpp"

namespace neurarch::families::qwen2_vl {

using namespace blocks;
using graph::NodeType;

decoder::DecoderSpec text_spec(const Config& text) {
  decoder::DecoderSpec s = decoder::read_llama_config(
      text, {.vocab = 152064, .hidden = 8192, .intermediate = 29568, .layers = 80, .heads = 64, .kv_heads = 8,
             .positions = 32768, .activation = "silu", .tie_word_embeddings = false});
  // The attention derives head_dim = hidden / heads and refuses a hidden size the heads do not divide.
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  s.qkv_bias = true;
  s.windows = decoder::qwen_windows(text, s.layers, 4096, 80);
  return s;
}

Config text_config_of(const Config& c) {
  // Older Qwen2-VL configs hold the text model's keys at the top level.
  if (c.has("text_config")) return c.child("text_config");
  return c;
}

namespace qwen2_vl_common_impl {
namespace {

// Qwen2VLImageProcessor's defaults (image_processing_qwen2_vl.py): pixels of the resized image.
constexpr std::int64_t kMinPixels = 56 * 56;
constexpr std::int64_t kMaxPixels = 28 * 28 * 1280;

// smart_resize for one side of a square photo: a multiple of `factor`, the area kept within
// [kMinPixels, kMaxPixels].
std::int64_t smart_side(std::int64_t side, std::int64_t factor) {
  const double s = static_cast<double>(side), f = static_cast<double>(factor);
  auto bar = static_cast<std::int64_t>(std::nearbyint(s / f)) * factor;  // Python's round: half to even
  if (bar * bar > kMaxPixels) {
    const double beta = std::sqrt(s * s / static_cast<double>(kMaxPixels));
    bar = static_cast<std::int64_t>(std::floor(s / beta / f)) * factor;
  } else if (bar * bar < kMinPixels) {
    const double beta = std::sqrt(static_cast<double>(kMinPixels) / (s * s));
    bar = static_cast<std::int64_t>(std::ceil(s * beta / f)) * factor;
  }
  return std::max(bar, factor);
}

}  // namespace
}  // namespace qwen2_vl_common_impl
using namespace qwen2_vl_common_impl;

Value vision(const BuildInput& in, GraphBuilder& b, const Config& c, Version v, ImageGrid& grid) {
  const bool v25 = v == Version::V2_5;
  const std::int64_t depth = c.dim({"depth"}, 32);
  const std::int64_t width = v25 ? c.dim({"hidden_size"}, 3584) : c.dim({"embed_dim"}, 1280);
  const std::int64_t out_width = v25 ? c.dim({"out_hidden_size"}, 3584) : c.dim({"hidden_size"}, 3584);
  const std::int64_t heads = c.dim({"num_heads"}, 16);
  const std::int64_t channels = c.dim({"in_channels"}, 3);
  const std::int64_t patch = c.dim({"patch_size"}, 14);
  const std::int64_t merge = c.dim({"spatial_merge_size"}, 2);
  const std::int64_t temporal = c.dim({"temporal_patch_size"}, 2);
  const std::string activation = c.text({"hidden_act"}, v25 ? "silu" : "quick_gelu");
  const std::int64_t intermediate = v25 ? c.dim({"intermediate_size"}, 3420) : width * c.dim({"mlp_ratio"}, 4);

  const std::int64_t factor = patch * merge;
  grid.photo = in.requested_image_size
                   ? *in.requested_image_size
                   : static_cast<std::int64_t>(std::floor(std::sqrt(static_cast<double>(qwen2_vl_common_impl::kMaxPixels)) /
                                                          static_cast<double>(factor))) * factor;
  grid.height = grid.width = qwen2_vl_common_impl::smart_side(grid.photo, factor);
  grid.patches = (grid.height / patch) * (grid.width / patch);
  grid.tokens = grid.patches / (merge * merge);

  // The processor flattens every temporal_patch_size x patch x patch cube (a still image is repeated in
  // time) into one row of pixel_values.
  auto pixels = b.input({grid.patches, channels * temporal * patch * patch}, "pixels");
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {grid.patches, width}, {pixels}, Scope("patch_embed"));
  b.parameter(x, Scope("patch_embed")("proj.weight"), {width, channels, temporal, patch, patch}, graph::TensorRole::Conv);

  // Qwen2.5-VL attends within windows of window_size pixels except in fullatt_block_indexes.
  std::vector<std::int64_t> full_layers;
  std::int64_t window_tokens = 0;
  if (v25) {
    if (const auto* list = c.raw({"fullatt_block_indexes"}); list && list->is_array()) {
      for (const auto& e : *list)
        if (e.is_number_integer()) full_layers.push_back(e.get<std::int64_t>());
    } else if (!list) {
      full_layers = {7, 15, 23, 31};
    }
    const std::int64_t window_side = (c.dim({"window_size"}, 112) / merge / patch) * merge;
    window_tokens = std::min(window_side * window_side, grid.patches);
  }
  const NormKind kind = v25 ? NormKind::RMSNorm : NormKind::LayerNorm;
  for (std::int64_t i = 0; i < depth; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = Scope("blocks") / i;
    const Scope attn = l / "attn";
    const Scope mlp = l / "mlp";
    PreNormLayer layer;
    layer.norm1 = {l / "norm1", kind};
    layer.attention = {.hidden = width, .heads = heads, .module = attn, .o = attn / "proj", .qkv = attn / "qkv",
                       .rotary = true};
    layer.norm2 = {l / "norm2", kind};
    if (v25)
      layer.ffn = {.hidden = width, .intermediate = intermediate, .activation = activation, .gated = true,
                   .module = mlp, .up = mlp / "up_proj", .down = mlp / "down_proj", .gate = mlp / "gate_proj"};
    else
      layer.ffn = {.hidden = width, .intermediate = intermediate, .activation = activation, .module = mlp,
                   .up = mlp / "fc1", .down = mlp / "fc2"};
    const int first_node = static_cast<int>(b.graph().nodes.size());
    x = pre_norm_layer(b, x, i, layer);
    const bool windowed = v25 && std::find(full_layers.begin(), full_layers.end(), i) == full_layers.end();
    if (windowed && window_tokens > 0)
      for (int n = first_node; n < static_cast<int>(b.graph().nodes.size()); ++n) {
        auto& node = b.at(Value{n, {}});
        // Each window is its own attention batch: the planner reads patches / window_tokens of them.
        if (node.attention) node.attention->query_len = node.attention->kv_len = window_tokens;
      }
  }
  b.set_block(-1);

  // PatchMerger: merge x merge neighbouring patches side by side, normed first, then two linears.
  const Scope merger("merger");
  auto normed = norm(b, x, "Merger_Norm", {merger / "ln_q", kind});
  const Value grouped{normed.node, {grid.tokens, width * merge * merge}};
  const std::int64_t merged = width * merge * merge;
  auto h = dense(b, grouped, "Merger_Linear_1", merger / "mlp" / std::int64_t{0}, merged, merged, true, "gelu");
  h = dense(b, h, "Merger_Linear_2", merger / "mlp" / std::int64_t{2}, merged, out_width, true);
  if ((grid.height / patch) % merge != 0)
    b.fail(h, fmt::format("a {}-patch side cannot be merged {} by {}", grid.height / patch, merge, merge));
  if (width % heads != 0)
    b.fail(h, fmt::format("vision width {} not divisible by {} heads", width, heads));
  return h;
}

Value composite_model(const BuildInput& in, GraphBuilder& b, const Config& c, Version v) {
  const Config text_config = text_config_of(c);
  const Config vision_config = c.child("vision_config");
  const decoder::DecoderSpec text = text_spec(text_config);
  ImageGrid grid;
  Value image;
  {
    graph::Nested nest(b, {.module = "visual", .label = "Vision_", .first_block = 0});
    image = vision(in, b, vision_config, v, grid);
  }
  if (image.shape.back() != text.hidden)
    b.fail(image, fmt::format("the merger writes {}-wide features into a {}-wide language model", image.shape.back(),
                              text.hidden));
  b.note(fmt::format("a {}x{} photo is resized to {}x{}: {} patches through the vision tower, {} image tokens in "
                     "the prompt; --image-size sets the photo's side",
                     grid.photo, grid.photo, grid.height, grid.width, grid.patches, grid.tokens));
  const std::int64_t seq = llava::prompt_length(in, b, text_config, grid.tokens);
  Value out;
  {
    graph::Nested nest(b, {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
    const BuildInput lm{text_config, v == Version::V2 ? "Qwen2VLTextModel" : "Qwen2_5_VLTextModel", Head::Base, seq,
                        std::nullopt};
    out = decoder::build_decoder(lm, b, text);
  }
  llava::scatter_into_prompt(b, image, grid.tokens);
  return out;
}

}  // namespace neurarch::families::qwen2_vl
