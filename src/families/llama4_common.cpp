#include "families/llama4_common.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/clip_common.hpp"

namespace neurarch::families::llama4 {

using namespace blocks;
using graph::NodeType;

Value vision_model(const BuildInput& in, GraphBuilder& b, const Config& c) {
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 34);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 16);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 5632);
  const std::int64_t configured = c.dim({"image_size"}, 448);
  const std::int64_t patch = c.dim({"patch_size"}, 14);
  const double ratio = c.number({"pixel_shuffle_ratio"}, 0.5);
  const std::int64_t projector_input = c.dim({"projector_input_dim"}, 4096);
  const std::int64_t projector_output = c.dim({"projector_output_dim"}, 4096);
  const double attention_dropout = c.number({"attention_dropout"}, 0.0);
  const double projector_dropout = c.number({"projector_dropout"}, 0.0);
  // The MLPs hard-code nn.GELU(); hidden_act is stored but not read.
  const std::string activation = "gelu";
  if (!(ratio > 0.0 && ratio <= 1.0))
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'pixel_shuffle_ratio'",
                fmt::format("expected a ratio in (0, 1], got {}", ratio));

  const std::int64_t image = in.image_size(configured);
  const std::int64_t side = image / patch;
  const std::int64_t table = (configured / patch) * (configured / patch) + 1;
  auto pixels = b.input({channels, image, image}, "pixels");

  // nn.Unfold then nn.Linear over each flattened patch; the class token joins after the patches.
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {side * side + 1, hidden}, {pixels}, Scope("patch_embedding"));
  b.parameter(x, (Scope("patch_embedding") / "linear")("weight"), {hidden, channels * patch * patch},
              graph::TensorRole::Linear);
  b.parameter(x, "class_embedding", {hidden}, graph::TensorRole::Embedding);
  if (image < patch) b.fail(x, fmt::format("image {}x{} is smaller than one {}-pixel patch", image, image, patch));
  auto positions = b.node(NodeType::LearnedPosEmbed, "Position_Embedding", x.shape, {x});
  b.parameter(positions, "positional_embedding_vlm", {table, hidden}, graph::TensorRole::Embedding);
  if (side * side + 1 != table)
    b.fail(positions, fmt::format("the position table holds {} tokens ({}-px images), the image makes {}", table,
                                  configured, side * side + 1));
  x = norm(b, positions, "Pre_LayerNorm", {Scope("layernorm_pre")});

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = Scope("model") / "layers" / i;
    const Scope attn = l / "self_attn";
    PreNormLayer layer;
    layer.norm1 = {l / "input_layernorm"};
    layer.attention = {.hidden = hidden, .heads = heads, .module = attn, .q = attn / "q_proj", .k = attn / "k_proj",
                       .v = attn / "v_proj", .o = attn / "o_proj", .qkv_bias = true, .o_bias = true,
                       .dropout = attention_dropout, .rotary = true};
    layer.norm2 = {l / "post_attention_layernorm"};
    layer.ffn = {.hidden = hidden, .intermediate = intermediate, .activation = activation, .module = l / "mlp",
                 .up = l / "mlp" / "fc1", .down = l / "mlp" / "fc2"};
    x = pre_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);
  x = norm(b, x, "Post_LayerNorm", {Scope("layernorm_post")});

  // Dropping the class token and the pixel shuffle only reshape: autograd keeps nothing for them.
  const std::int64_t shuffled_side = static_cast<std::int64_t>(static_cast<double>(side) * ratio);
  const std::int64_t shuffled_width = static_cast<std::int64_t>(static_cast<double>(hidden) / (ratio * ratio));
  auto shuffled = b.node(NodeType::Add, "Pixel_Shuffle", {shuffled_side * shuffled_side, shuffled_width}, {x});
  const Scope mlp = Scope("vision_adapter") / "mlp";
  auto h = dense(b, shuffled, "Adapter_FC1", mlp / "fc1", intermediate, projector_input, false, activation);
  b.at(h).dropout = projector_dropout;
  return dense(b, h, "Adapter_FC2", mlp / "fc2", projector_output, projector_output, false, activation);
}

}  // namespace neurarch::families::llama4
