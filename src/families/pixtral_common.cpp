#include "families/pixtral_common.hpp"

#include <fmt/format.h>

namespace neurarch::families::pixtral {

using namespace blocks;
using graph::NodeType;

Encoder encoder(const BuildInput& in, GraphBuilder& b, const Config& c) {
  Encoder e;
  e.hidden = c.dim({"hidden_size"}, 1024);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 4096);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 24);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 16);
  // The attention projects embed_dim -> embed_dim and splits it by heads, whatever head_dim says.
  const std::int64_t head_dim = e.hidden / heads;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t patch = c.dim({"patch_size"}, 16);
  const std::int64_t photo = in.image_size(c.dim({"image_size"}, 1024));
  const std::string activation = c.text({"hidden_act"}, "gelu");
  e.side = photo / patch;

  auto pixels = b.input({channels, photo, photo}, "pixels");
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {e.side * e.side, e.hidden}, {pixels}, Scope("patch_conv"));
  b.parameter(x, Scope("patch_conv")("weight"), {e.hidden, channels, patch, patch}, graph::TensorRole::Conv);
  if (photo < patch) b.fail(x, fmt::format("image {}x{} is smaller than one {}-pixel patch", photo, photo, patch));
  x = norm(b, x, "Pre_RMSNorm", {Scope("ln_pre"), NormKind::RMSNorm});
  e.hidden_states.push_back(x);
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = Scope("transformer") / "layers" / i;
    const Scope attn = l / "attention";
    const Scope ffn = l / "feed_forward";
    PreNormLayer layer;
    layer.norm1 = {l / "attention_norm", NormKind::RMSNorm};
    layer.attention = {.hidden = e.hidden, .heads = heads, .head_dim = head_dim, .module = attn, .q = attn / "q_proj",
                       .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "o_proj", .qkv_bias = false,
                       .o_bias = false, .require_divisible = false, .dropout = c.number({"attention_dropout"}, 0.0),
                       .rotary = true};
    layer.norm2 = {l / "ffn_norm", NormKind::RMSNorm};
    layer.ffn = {.hidden = e.hidden, .intermediate = intermediate, .activation = activation, .gated = true,
                 .module = ffn, .up = ffn / "up_proj", .down = ffn / "down_proj", .gate = ffn / "gate_proj",
                 .bias = false, .down_bias = false};
    x = pre_norm_layer(b, x, i, layer);
    e.hidden_states.push_back(x);
  }
  b.set_block(-1);
  return e;
}

}  // namespace neurarch::families::pixtral
