#include "families/qwen3_vl_common.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "families/clip_common.hpp"
#include "families/llava_common.hpp"
#include "families/moe_common.hpp"
#include "families/qwen3.hpp"

namespace neurarch::families::qwen3_vl {

using namespace blocks;
using graph::NodeType;

decoder::DecoderSpec text_spec(const Config& text) {
  return qwen3_spec(text, {.vocab = 151936, .hidden = 4096, .intermediate = 22016, .layers = 32, .heads = 32,
                           .kv_heads = 32, .head_dim = 128, .positions = 128000, .activation = "silu",
                           .tie_word_embeddings = false});
}

decoder::DecoderSpec moe_text_spec(const Config& text) {
  decoder::DecoderSpec s = text_spec(text);
  // Qwen3VLMoeTextConfig's own defaults where they differ from the dense text config's.
  const decoder::DecoderSpec d = decoder::read_llama_config(
      text, {.vocab = 151936, .hidden = 2048, .intermediate = 5632, .layers = 24, .heads = 16, .kv_heads = 16,
             .positions = 128000, .activation = "silu", .tie_word_embeddings = true});
  s.vocab = d.vocab, s.hidden = d.hidden, s.intermediate = d.intermediate, s.layers = d.layers, s.heads = d.heads;
  s.kv_heads = d.kv_heads, s.head_dim = d.head_dim, s.positions = d.positions;
  s.windows.clear();
  const std::int64_t experts = text.integer({"num_experts"}, 60);
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = text.dim({"moe_intermediate_size"}, 1408),
                             .experts = experts, .top_k = text.integer({"num_experts_per_tok"}, 4),
                             .activation = s.activation};
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  const auto fused = [make = moe::experts_under(base)](std::int64_t i, const graph::Scope& layer) {
    blocks::MoESpec spec = make(i, layer);
    spec.bare_experts = spec.experts_module;
    spec.bare_out_in = true;
    return spec;
  };
  s.mlp_override = moe::layer_hook(moe::sparse_layers_by_step(text, s.layers, experts), fused,
                                   moe::dense_under(hidden, intermediate, activation));
  return s;
}

namespace qwen3_vl_common_impl {
namespace {

// Qwen3-VL's image processor (preprocessor_config.json of the Qwen3-VL checkpoints): size.shortest_edge = 65536
// and size.longest_edge = 16777216 pixels bound the resized image's area.
constexpr double kMinPixels = 65536;
constexpr double kMaxPixels = 16777216;

// smart_resize of one side of a square photo: a multiple of `factor` with the area inside the bounds.
std::int64_t smart_side(std::int64_t side, std::int64_t factor) {
  const double s = static_cast<double>(side), f = static_cast<double>(factor);
  auto bar = static_cast<std::int64_t>(std::nearbyint(s / f)) * factor;
  const double area = static_cast<double>(bar) * static_cast<double>(bar);
  if (area > kMaxPixels)
    bar = static_cast<std::int64_t>(std::floor(s / std::sqrt(s * s / kMaxPixels) / f)) * factor;
  else if (area < kMinPixels)
    bar = static_cast<std::int64_t>(std::ceil(s * std::sqrt(kMinPixels / (s * s)) / f)) * factor;
  return std::max(bar, factor);
}

struct Vision {
  Value merged;                  ///< [tokens, out_hidden_size]
  std::vector<Value> deepstack;  ///< one [tokens, out_hidden_size] per deepstack_visual_indexes entry
  std::int64_t photo = 0, side = 0, patches = 0, tokens = 0;
};

// Qwen3VLVisionPatchMerger under `module`: LayerNorm over each patch (or, after the merge, over the merged row),
// then linear_fc1 -> GELU -> linear_fc2.
Value patch_merger(GraphBuilder& b, const Value& x, const Scope& module, const std::string& label, std::int64_t width,
                   std::int64_t merge, std::int64_t tokens, std::int64_t out, bool norm_after_merge) {
  const std::int64_t merged = width * merge * merge;
  Value grouped;
  if (norm_after_merge) {
    grouped = norm(b, Value{x.node, {tokens, merged}}, label + "_Norm", {module / "norm"});
  } else {
    auto normed = norm(b, x, label + "_Norm", {module / "norm"});
    grouped = Value{normed.node, {tokens, merged}};
  }
  auto h = dense(b, grouped, label + "_Linear_1", module / "linear_fc1", merged, merged, true, "gelu");
  return dense(b, h, label + "_Linear_2", module / "linear_fc2", merged, out, true);
}

Vision vision(const BuildInput& in, GraphBuilder& b, const Config& c, bool deepstack) {
  const std::int64_t depth = c.dim({"depth", "num_hidden_layers"}, 27);
  const std::int64_t width = c.dim({"hidden_size"}, 1152);
  const std::int64_t out_width = c.dim({"out_hidden_size"}, 3584);
  const std::int64_t heads = c.dim({"num_heads", "num_attention_heads"}, 16);
  const std::int64_t channels = c.dim({"in_channels"}, 3);
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  const std::int64_t merge = c.dim({"spatial_merge_size"}, 2);
  const std::int64_t temporal = c.dim({"temporal_patch_size"}, 2);
  const std::int64_t positions = c.dim({"num_position_embeddings"}, 2304);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 4304);
  const std::string activation = c.text({"hidden_act"}, "gelu_pytorch_tanh");
  std::vector<std::int64_t> deepstack_layers{8, 16, 24};
  if (!deepstack) {
    deepstack_layers.clear();
  } else if (const auto* list = c.raw({"deepstack_visual_indexes"}); list && list->is_array()) {
    deepstack_layers.clear();
    for (const auto& e : *list)
      if (e.is_number_integer()) deepstack_layers.push_back(e.get<std::int64_t>());
  }

  Vision v;
  const std::int64_t factor = patch * merge;
  const auto native = static_cast<std::int64_t>(std::sqrt(static_cast<double>(positions)));
  v.photo = in.requested_image_size ? *in.requested_image_size : native * patch;
  v.side = smart_side(v.photo, factor);
  v.patches = (v.side / patch) * (v.side / patch);
  v.tokens = v.patches / (merge * merge);

  // Every temporal_patch_size x patch x patch cube (a still image repeated in time) is one row of pixel_values.
  auto pixels = b.input({v.patches, channels * temporal * patch * patch}, "pixels");
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {v.patches, width}, {pixels}, Scope("patch_embed"));
  b.parameter(x, Scope("patch_embed")("proj.weight"), {width, channels, temporal, patch, patch}, graph::TensorRole::Conv);
  b.parameter(x, Scope("patch_embed")("proj.bias"), {width}, graph::TensorRole::Bias);
  // Each patch reads four rows of the learned grid (bilinear resampling to the image's grid) and adds them.
  x = added_embedding(b, x, "Position_Embedding", Scope("pos_embed"), positions, width);

  for (std::int64_t i = 0; i < depth; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = Scope("blocks") / i;
    const Scope attn = l / "attn";
    const Scope mlp = l / "mlp";
    PreNormLayer layer;
    layer.norm1 = {l / "norm1"};
    layer.attention = {.hidden = width, .heads = heads, .module = attn, .o = attn / "proj", .qkv = attn / "qkv",
                       .rotary = true};
    layer.norm2 = {l / "norm2"};
    layer.ffn = {.hidden = width, .intermediate = intermediate, .activation = activation, .module = mlp,
                 .up = mlp / "linear_fc1", .down = mlp / "linear_fc2"};
    x = pre_norm_layer(b, x, i, layer);
    const auto at = std::find(deepstack_layers.begin(), deepstack_layers.end(), i);
    if (at != deepstack_layers.end()) {
      const auto k = static_cast<std::int64_t>(at - deepstack_layers.begin());
      b.set_block(-1);
      v.deepstack.push_back(patch_merger(b, x, Scope("deepstack_merger_list") / k, fmt::format("DeepStack_{}", k),
                                         width, merge, v.tokens, out_width, true));
    }
  }
  b.set_block(-1);
  v.merged = patch_merger(b, x, Scope("merger"), "Merger", width, merge, v.tokens, out_width, false);
  for (auto layer : deepstack_layers)
    if (layer < 0 || layer >= depth)
      b.fail(v.merged, fmt::format("deepstack_visual_indexes names layer {} of a {}-block tower", layer, depth));
  if ((v.side / patch) % merge != 0)
    b.fail(v.merged, fmt::format("a {}-patch side cannot be merged {} by {}", v.side / patch, merge, merge));
  if (width % heads != 0) b.fail(v.merged, fmt::format("vision width {} not divisible by {} heads", width, heads));
  return v;
}

}  // namespace
}  // namespace qwen3_vl_common_impl
using namespace qwen3_vl_common_impl;

Value vision_model(const BuildInput& in, GraphBuilder& b, const Config& vision_config, bool deepstack) {
  const qwen3_vl_common_impl::Vision v = qwen3_vl_common_impl::vision(in, b, vision_config, deepstack);
  b.note(fmt::format("a {0}x{0} photo is resized to {1}x{1}: {2} patches through the vision tower, merged into {3} "
                     "image features, plus {4} DeepStack feature sets; --image-size sets the photo's side",
                     v.photo, v.side, v.patches, v.tokens, v.deepstack.size()));
  return v.merged;
}

Value build(const BuildInput& in, GraphBuilder& b, const decoder::DecoderSpec& text, std::string_view text_class,
            bool deepstack) {
  const Config& c = in.config;
  const Config text_config = c.child("text_config");
  const Config vision_config = c.child("vision_config");
  const bool with_head = in.head != Head::Base;
  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    qwen3_vl_common_impl::Vision v;
    {
      graph::Nested nest(b, {.module = "visual", .label = "Vision_", .first_block = 0});
      v = qwen3_vl_common_impl::vision(in, b, vision_config, deepstack);
    }
    b.note(fmt::format("a {0}x{0} photo is resized to {1}x{1}: {2} patches through the vision tower, {3} image "
                       "tokens in the prompt, {4} DeepStack feature sets added to the first decoder layers; "
                       "--image-size sets the photo's side",
                       v.photo, v.side, v.patches, v.tokens, v.deepstack.size()));
    const std::int64_t seq = llava::prompt_length(in, b, text_config, v.tokens);
    {
      graph::Nested nest(b, {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
      const BuildInput lm{text_config, std::string(text_class), Head::Base, seq, std::nullopt};
      out = decoder::build_decoder(lm, b, text);
    }
    llava::scatter_into_prompt(b, v.merged, v.tokens);
    // DeepStack adds each set to the hidden state after decoder layer k; the graph joins them where the image
    // features enter, which keeps them alive for the forward as the reference does.
    for (const auto& d : v.deepstack) llava::scatter_into_prompt(b, d, v.tokens);
  }
  if (with_head) out = llava::top_lm_head(b, out, text_config, c.flag({"tie_word_embeddings"}, false));
  return out;
}

}  // namespace neurarch::families::qwen3_vl
