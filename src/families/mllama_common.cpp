#include "families/mllama_common.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/seq2seq.hpp"
#include "families/clip_common.hpp"
#include "families/config_lists.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families::mllama {

using namespace blocks;
using graph::NodeType;

namespace mllama_common_impl {
namespace {

// A learned table looked up by the image's aspect-ratio id and added, scaled by tanh(gate).
Value gated_aspect_ratio(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                         std::int64_t rows, std::int64_t width) {
  auto out = b.node(NodeType::Embedding, name, x.shape, {x}, module);
  b.parameter(out, (module / "embedding")("weight"), {rows, width}, graph::TensorRole::Embedding);
  b.parameter(out, module("gate"), {1}, graph::TensorRole::Other);
  return out;
}


}  // namespace
}  // namespace mllama_common_impl
using namespace mllama_common_impl;

VisionOut vision(const BuildInput& in, GraphBuilder& b, const Config& c) {
  const std::int64_t hidden = c.dim({"hidden_size"}, 1280);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 32);
  const std::int64_t global_layers = c.integer({"num_global_layers"}, 8);
  const std::int64_t heads = c.dim({"attention_heads"}, 16);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 5120);
  const std::int64_t output_dim = c.dim({"vision_output_dim"}, 7680);
  const std::int64_t image_size = in.image_size(c.dim({"image_size"}, 448));
  const std::int64_t patch = c.dim({"patch_size"}, 14);
  const std::int64_t tiles = c.dim({"max_num_tiles"}, 4);
  const std::string activation = c.text({"hidden_act"}, "gelu");
  const auto indices = index_list(c, "intermediate_layers_indices", {3, 7, 15, 23, 30});
  const auto* ratios = c.raw({"supported_aspect_ratios"});
  const std::int64_t aspect_rows = (ratios && ratios->is_array() ? static_cast<std::int64_t>(ratios->size()) : 8) + 1;
  // The position tables are sized by the configured tile, whatever --image-size says.
  const std::int64_t table = (c.dim({"image_size"}, 448) / patch) * (c.dim({"image_size"}, 448) / patch) + 1;
  const std::int64_t patches = (image_size / patch) * (image_size / patch);
  const std::int64_t tokens = patches + 1;
  const std::int64_t padded = (tokens + 7) / 8 * 8;

  auto pixels = b.input({tiles, channels, image_size, image_size}, "pixels");
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {tiles * patches, hidden}, {pixels}, Scope("patch_embedding"));
  b.parameter(x, Scope("patch_embedding")("weight"), {hidden, channels, patch, patch}, graph::TensorRole::Conv);
  x = mllama_common_impl::gated_aspect_ratio(b, x, "Pre_Tile_Position_Embedding", Scope("pre_tile_positional_embedding"), aspect_rows,
                         tiles * hidden);
  auto cls = b.node(NodeType::Embedding, "Class_Embedding", {tiles * tokens, hidden}, {x});
  b.parameter(cls, "class_embedding", {hidden}, graph::TensorRole::Embedding);
  const Scope positions("gated_positional_embedding");
  x = b.node(NodeType::Embedding, "Gated_Position_Embedding", {tiles * tokens, hidden}, {cls}, positions);
  b.parameter(x, positions("gate"), {1}, graph::TensorRole::Other);
  b.parameter(x, positions("embedding"), {table, hidden}, graph::TensorRole::Embedding);
  b.parameter(x, (positions / "tile_embedding")("weight"), {aspect_rows, tiles * table * hidden},
              graph::TensorRole::Embedding);
  if (tokens != table)
    b.fail(x, fmt::format("a {}-px tile has {} patch positions; the table holds {}", image_size, tokens, table));
  x = norm(b, x, "LayerNorm_Pre", {Scope("layernorm_pre")});
  x = Value{x.node, {tiles * padded, hidden}};

  const auto encoder = [&](const Value& input, const Scope& root, std::int64_t count, bool gated, int first_block,
                           std::vector<Value>* states) {
    Value h = input;
    for (std::int64_t i = 0; i < count; ++i) {
      if (states) states->push_back(h);
      b.set_block(first_block + static_cast<int>(i));
      const Scope l = root / "layers" / i;
      const Scope attn = l / "self_attn";
      const Scope mlp = l / "mlp";
      PreNormLayer layer;
      layer.norm1 = {l / "input_layernorm"};
      layer.attention = {.hidden = hidden, .heads = heads, .module = attn, .q = attn / "q_proj", .k = attn / "k_proj",
                         .v = attn / "v_proj", .o = attn / "o_proj", .qkv_bias = false, .o_bias = false};
      layer.norm2 = {l / "post_attention_layernorm"};
      layer.ffn = {.hidden = hidden, .intermediate = intermediate, .activation = activation, .module = mlp,
                   .up = mlp / "fc1", .down = mlp / "fc2"};
      h = pre_norm_layer(b, h, first_block + i, layer);
      if (gated) {
        b.parameter(h, l("gate_attn"), {1}, graph::TensorRole::Other);
        b.parameter(h, l("gate_ffn"), {1}, graph::TensorRole::Other);
      }
    }
    if (states) states->push_back(h);
    b.set_block(-1);
    return h;
  };
  std::vector<Value> states;
  x = encoder(x, Scope("transformer"), layers, false, 0, &states);
  x = norm(b, Value{x.node, {tiles * tokens, hidden}}, "LayerNorm_Post", {Scope("layernorm_post")});
  x = mllama_common_impl::gated_aspect_ratio(b, x, "Post_Tile_Position_Embedding", Scope("post_tile_positional_embedding"), aspect_rows,
                         tiles * hidden);
  x = encoder(Value{x.node, {tiles * padded, hidden}}, Scope("global_transformer"), global_layers, true,
              static_cast<int>(layers), nullptr);
  // The last state and the picked intermediate ones, side by side.
  const auto width = hidden * static_cast<std::int64_t>(1 + indices.size());
  auto joined = b.node(NodeType::Add, "Concat_Intermediate_States", {tiles * tokens, width}, {x});
  for (auto i : indices) {
    if (i < 0 || i >= static_cast<std::int64_t>(states.size()))
      b.fail(joined, fmt::format("intermediate_layers_indices names state {} of {}", i, states.size()));
    else
      b.at(joined).inputs.push_back(states[static_cast<std::size_t>(i)].node);
  }
  if (width != output_dim)
    b.fail(joined, fmt::format("{} states of width {} make {}, not vision_output_dim {}", 1 + indices.size(), hidden,
                               width, output_dim));
  if (heads <= 0 || hidden % heads != 0)
    b.fail(joined, fmt::format("vision width {} not divisible by {} heads", hidden, heads));
  return {joined, tiles, tiles * tokens, output_dim};
}

Text text(const Config& text_config) {
  Text t;
  decoder::DecoderSpec& s = t.spec;
  s = decoder::read_llama_config(
      text_config, {.vocab = 128256, .hidden = 4096, .intermediate = 14336, .layers = 40, .heads = 32, .kv_heads = 8,
                    .positions = 131072, .activation = "silu", .tie_word_embeddings = false});
  t.vocab = s.vocab;
  s.vocab = t.vocab + 8;  // the embedding holds 8 rows past the LM head's vocabulary
  t.cross_layers = index_list(text_config, "cross_attention_layers", {3, 8, 13, 18, 23, 28, 33, 38});
  return t;
}

void cross_attend(Text& t, const Value& image) {
  decoder::DecoderSpec& s = t.spec;
  const std::int64_t heads = s.heads, kv_heads = s.kv_heads, hidden = s.hidden;
  const std::int64_t head_dim = s.heads > 0 ? s.hidden / s.heads : 0;
  s.attention_override = [cross_layers = t.cross_layers, image, heads, kv_heads, hidden, head_dim](
                             GraphBuilder& gb, const Value& x, std::int64_t i, const Scope& l) -> Value {
    if (std::find(cross_layers.begin(), cross_layers.end(), i) == cross_layers.end()) return Value{-1, {}};
    const Scope attn = l / "cross_attn";
    auto h = cross_attention(gb, x, image, BlockNames{i}.attention(),
                             {.hidden = hidden, .heads = heads, .kv_heads = kv_heads, .head_dim = head_dim,
                              .module = attn, .q = attn / "q_proj", .k = attn / "k_proj", .v = attn / "v_proj",
                              .o = attn / "o_proj", .qkv_bias = false, .o_bias = false});
    gb.parameter(h, (attn / "q_norm")("weight"), {head_dim}, graph::TensorRole::Norm);
    gb.parameter(h, (attn / "k_norm")("weight"), {head_dim}, graph::TensorRole::Norm);
    gb.parameter(h, l("cross_attn_attn_gate"), {1}, graph::TensorRole::Other);
    gb.parameter(h, l("cross_attn_mlp_gate"), {1}, graph::TensorRole::Other);
    return h;
  };
}

void finish_text(GraphBuilder& b, const Value& out, const Text& t) {
  for (auto layer : t.cross_layers)
    if (layer < 0 || layer >= t.spec.layers)
      b.fail(out, fmt::format("cross_attention_layers names layer {} of a {}-layer text model", layer, t.spec.layers));
  if (const graph::Node* embed = multimodal::prompt_embedding(b.graph())) {
    const int ids = embed->inputs.front();
    b.set_main_input(Value{ids, b.graph().nodes[static_cast<std::size_t>(ids)].out});
  }
}

}  // namespace neurarch::families::mllama
