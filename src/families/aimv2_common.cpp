#include "families/aimv2_common.hpp"

#include <fmt/format.h>

#include "families/vit_common.hpp"

namespace neurarch::families::aimv2 {
namespace aimv2_common_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Dims {
  std::int64_t hidden, intermediate, layers, heads;
  std::string activation = "silu";
  bool qkv_bias = false;
  bool mlp_bias = false;
  double attention_dropout = 0.0;
};

Dims read_dims(const Config& c, const Dims& d) {
  return {c.dim({"hidden_size"}, d.hidden),       c.dim({"intermediate_size"}, d.intermediate),
          c.dim({"num_hidden_layers"}, d.layers), c.dim({"num_attention_heads"}, d.heads),
          c.text({"hidden_act"}, d.activation),   c.flag({"qkv_bias"}, d.qkv_bias),
          c.flag({"mlp_bias"}, d.mlp_bias),       c.number({"attention_dropout"}, 0.0)};
}

Value encoder(GraphBuilder& b, Value x, const Scope& root, const Dims& d, bool causal) {
  const Scope layers = root / "encoder" / "layers";
  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = layers / i;
    const Scope attn = l / "attention";
    const Scope ffn = l / "ffn";
    PreNormLayer layer;
    layer.norm1 = {l / "rms_norm1", NormKind::RMSNorm};
    layer.attention = {.hidden = d.hidden, .heads = d.heads, .causal = causal, .module = attn, .q = attn / "q_proj",
                       .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "out_proj", .qkv_bias = d.qkv_bias,
                       .o_bias = d.qkv_bias, .dropout = d.attention_dropout};
    layer.norm2 = {l / "rms_norm2", NormKind::RMSNorm};
    layer.ffn = {.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation, .gated = true,
                 .module = ffn, .up = ffn / "up_proj", .down = ffn / "down_proj", .gate = ffn / "gate_proj",
                 .bias = d.mlp_bias, .down_bias = d.mlp_bias};
    x = pre_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);
  return norm(b, x, "Final_RMSNorm", {root / "rms_norm", NormKind::RMSNorm});
}

// Aimv2AttentionPoolingHead: the learned cls_token is the query as is (no q projection); keys and values are
// projected from the sequence; the one pooled token goes through output_proj, which always has a bias.
Value attention_pooling(GraphBuilder& b, const Value& x, const Scope& head, const Dims& d) {
  const std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 1;
  auto pooled = b.node(NodeType::MultiHeadAttention, "Head_Attention", {d.hidden}, {x}, head);
  b.at(pooled).attention = graph::AttentionAttrs{.heads = d.heads, .kv_heads = d.heads,
                                                 .head_dim = d.hidden / d.heads, .query_len = 1, .kv_len = seq};
  b.parameter(pooled, head("cls_token"), {1, 1, d.hidden}, graph::TensorRole::Other);
  linear_tensors(b, pooled, head / "k_proj", d.hidden, d.hidden, d.qkv_bias);
  linear_tensors(b, pooled, head / "v_proj", d.hidden, d.hidden, d.qkv_bias);
  if (d.hidden % d.heads != 0)
    b.fail(pooled, fmt::format("hidden size {} not divisible by {} heads", d.hidden, d.heads));
  return dense(b, pooled, "Head_Output_Proj", head / "output_proj", d.hidden, d.hidden, true);
}

}  // namespace
}  // namespace aimv2_common_impl
using namespace aimv2_common_impl;

Tower vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root, const VisionVariant& v) {
  const aimv2_common_impl::Dims d = aimv2_common_impl::read_dims(c, {.hidden = 1024, .intermediate = 2816, .layers = 24, .heads = 8});
  const BuildInput sub{c, in.class_name, in.head, in.requested_seq, in.requested_image_size};
  const vit::Geometry g = vit::read_geometry(sub, {224, 224, false}, 14);
  const bool native = c.flag({"is_native"}, false);
  const Scope emb = root / "embeddings";

  auto x = vit::pixel_stem(b, g, emb / v.patch_module, d.hidden, 0);
  x = norm(b, x, "Patch_RMSNorm", {emb / "rms_norm", NormKind::RMSNorm});
  if (!native) {
    // position_ids cover the configured grid only: another image size fails the addition.
    auto pos = b.node(NodeType::LearnedPosEmbed, "Learned_Pos_Embed", x.shape, {x}, emb / "position_embedding");
    b.parameter(pos, (emb / "position_embedding")("weight"), {g.configured_patches(), d.hidden}, graph::TensorRole::Embedding);
    if (g.input_differs())
      b.fail(pos, fmt::format("a {}x{} image makes {} patches, but the learned position table holds the {} of the "
                              "configured image_size {}x{} (only is_native models take other sizes)",
                              g.input.h, g.input.w, g.input_patches(), g.configured_patches(), g.configured.h,
                              g.configured.w));
    x = pos;
  }
  Tower t;
  t.hidden = d.hidden;
  t.sequence = aimv2_common_impl::encoder(b, x, root, d, false);
  t.pooled = v.head && c.flag({"use_head"}, true) ? aimv2_common_impl::attention_pooling(b, t.sequence, root / "head", d) : t.sequence;
  return t;
}

Tower text_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root) {
  const aimv2_common_impl::Dims d = aimv2_common_impl::read_dims(c, {.hidden = 768, .intermediate = 2048, .layers = 12, .heads = 6});
  const std::int64_t vocab = c.dim({"vocab_size"}, 49408);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 77);
  const Scope emb = root / "embeddings";
  auto ids = b.input({in.sequence_length(positions)}, "tokens");
  auto x = token_embedding(b, ids, "Token_Embed", emb / "token_embedding", vocab, d.hidden);
  x = learned_positions(b, x, "Learned_Pos_Embed", emb / "position_embedding", positions, d.hidden);
  Tower t;
  t.hidden = d.hidden;
  // Causal under the padding mask the tokenizer always supplies (create_causal_mask); pooled at the EOS token.
  t.sequence = aimv2_common_impl::encoder(b, x, root, d, true);
  t.pooled = Value{t.sequence.node, {d.hidden}};
  return t;
}

}  // namespace neurarch::families::aimv2
