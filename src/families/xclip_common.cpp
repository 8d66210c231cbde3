#include "families/xclip_common.hpp"

#include <fmt/format.h>

#include "families/vit_common.hpp"

namespace neurarch::families::xclip {

using namespace blocks;
using graph::NodeType;

TowerDims vision_dims(const Config& c) {
  return {c.dim({"hidden_size"}, 768), c.dim({"intermediate_size"}, 3072), c.dim({"num_hidden_layers"}, 12),
          c.dim({"num_attention_heads"}, 12), c.text({"hidden_act"}, "quick_gelu"), c.number({"attention_dropout"}, 0.0)};
}

AttentionSpec self_attention_spec(const Scope& module, const TowerDims& d) {
  return AttentionSpec{.hidden = d.hidden, .heads = d.heads, .module = module, .q = module / "q_proj",
                       .k = module / "k_proj", .v = module / "v_proj", .o = module / "out_proj",
                       .dropout = d.attention_dropout};
}

FeedForwardSpec mlp_spec(const Scope& mlp, const TowerDims& d) {
  return FeedForwardSpec{.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation,
                         .module = mlp, .up = mlp / "fc1", .down = mlp / "fc2"};
}

Value vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root, const TowerDims& d,
                   std::int64_t frames, Value& pooled) {
  const BuildInput sub{c, in.class_name, in.head, in.requested_seq, in.requested_image_size};
  const vit::Geometry g = vit::read_geometry(sub, {224, 224, false}, 32);
  const Scope emb = root / "embeddings";
  const Scope conv = emb / "patch_embedding";
  auto pixels = b.input({frames, g.channels, g.input.h, g.input.w}, "pixels");
  const std::int64_t seq = 1 + g.input_patches();
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {frames, seq, d.hidden}, {pixels}, conv);
  b.parameter(x, emb("class_embedding"), {d.hidden}, graph::TensorRole::Embedding);
  b.parameter(x, conv("weight"), {d.hidden, g.channels, g.patch.h, g.patch.w}, graph::TensorRole::Conv);
  if (g.input.h < g.patch.h || g.input.w < g.patch.w)
    b.fail(x, fmt::format("image {}x{} is smaller than one {}x{} patch", g.input.h, g.input.w, g.patch.h, g.patch.w));
  vit::refuse_other_sizes(b, x, g, "X-CLIP");
  auto pos = b.node(NodeType::LearnedPosEmbed, "Learned_Pos_Embed", x.shape, {x}, emb / "position_embedding");
  b.parameter(pos, (emb / "position_embedding")("weight"), {g.configured_patches() + 1, d.hidden}, graph::TensorRole::Embedding);
  x = norm(b, pos, "Pre_LayerNorm", {root / "pre_layernorm"});

  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "encoder" / "layers" / i;
    const BlockNames n{i};
    // One message token per frame: its class token through message_fc, attended across the frames.
    auto message = dense(b, Value{x.node, {frames, d.hidden}}, fmt::format("Message_FC_{}", i), l / "message_fc",
                         d.hidden, d.hidden, true);
    auto message_in = norm(b, message, fmt::format("Message_LayerNorm_{}", i), {l / "message_ln"});
    auto across = attention(b, message_in, fmt::format("Message_Attention_{}", i),
                            self_attention_spec(l / "message_attn", d));
    message = add(b, across, message, fmt::format("Message_Add_{}", i));
    // The frame's sequence with its message token appended (a concatenation), for the self-attention only.
    auto joined = b.node(NodeType::Add, fmt::format("Message_Concat_{}", i), {frames, seq + 1, d.hidden},
                         {x, message});
    auto h = norm(b, joined, n.norm(1, NormKind::LayerNorm), {l / "layer_norm1"});
    h = attention(b, h, n.attention(), self_attention_spec(l / "self_attn", d));
    h = add(b, h, joined, n.add(1));
    const Value kept{h.node, {frames, seq, d.hidden}};  // the message token is dropped again
    auto f = norm(b, kept, n.norm(2, NormKind::LayerNorm), {l / "layer_norm2"});
    f = feed_forward(b, f, n.ffn(), mlp_spec(l / "mlp", d));
    x = add(b, f, kept, n.add(2));
  }
  b.set_block(-1);
  pooled = norm(b, Value{x.node, {frames, d.hidden}}, "Post_LayerNorm", {root / "post_layernorm"});
  return x;
}

}  // namespace neurarch::families::xclip
