// DINOv3 ViT (models/dinov3_vit/modeling_dinov3_vit.py, transformers 4.57.6): DINOv2's pre-norm layers
// with layer scale but no position table: 2-D RoPE on the patch tokens inside attention (inv_freq is a
// non-persistent buffer), so any image size runs. CLS, mask and register tokens sit on the embeddings;
// q/k/v/o and the MLP have separate bias switches (key_bias defaults to False); use_gated_mlp swaps in a
// gate/up/down MLP. Flat module names (layer.i, norm); pooler_output is the CLS row, no tensors.
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace dinov3_vit_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 384);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 6);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 1536);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const std::int64_t registers = c.integer({"num_register_tokens"}, 0);
  const bool query_bias = c.flag({"query_bias"}, true);
  const bool key_bias = c.flag({"key_bias"}, false);
  const bool value_bias = c.flag({"value_bias"}, true);
  const bool proj_bias = c.flag({"proj_bias"}, true);
  const bool mlp_bias = c.flag({"mlp_bias"}, true);
  const bool gated = c.flag({"use_gated_mlp"}, false);
  const vit::Geometry g = vit::read_geometry(in, {224, 224, false}, 16);

  Scope emb("embeddings");
  auto x = vit::pixel_stem(b, g, emb / "patch_embeddings", hidden, 1 + registers);
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  b.parameter(x, emb("mask_token"), {1, 1, hidden}, graph::TensorRole::Other);
  b.parameter(x, emb("register_tokens"), {1, registers, hidden}, graph::TensorRole::Other);

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    BlockNames n{i};
    Scope l = Scope("layer") / i;
    Scope attn = l / "attention";
    auto h = norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "norm1"});
    h = attention(b, h, n.attention(),
                  {.hidden = hidden, .heads = heads, .module = attn, .q = attn / "q_proj", .k = attn / "k_proj",
                   .v = attn / "v_proj", .o = attn / "o_proj", .qkv_bias = false, .o_bias = proj_bias});
    // Each projection has its own bias switch, which the shared attention block does not express.
    if (query_bias) b.parameter(h, attn("q_proj.bias"), {hidden}, graph::TensorRole::Bias);
    if (key_bias) b.parameter(h, attn("k_proj.bias"), {hidden}, graph::TensorRole::Bias);
    if (value_bias) b.parameter(h, attn("v_proj.bias"), {hidden}, graph::TensorRole::Bias);
    h = layer_scale(b, h, n.scale(1), l("layer_scale1.lambda1"));
    auto residual = add(b, h, x, n.add(1));
    h = norm(b, residual, n.norm(2, NormKind::LayerNorm), {l / "norm2"});
    Scope mlp = l / "mlp";
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = hidden, .intermediate = intermediate, .activation = act, .gated = gated,
                      .module = mlp, .up = mlp / "up_proj", .down = mlp / "down_proj", .gate = mlp / "gate_proj",
                      .bias = mlp_bias, .down_bias = mlp_bias});
    h = layer_scale(b, h, n.scale(2), l("layer_scale2.lambda1"));
    x = add(b, h, residual, n.add(2));
  }
  b.set_block(-1);
  return norm(b, x, "Final_LayerNorm", {Scope("norm")});
}

}  // namespace
}  // namespace dinov3_vit_impl

const Family& dinov3_vit_family() {
  static const Family family{"dinov3_vit", "models/dinov3_vit/modeling_dinov3_vit.py", classes("DINOv3ViT"), dinov3_vit_impl::build};
  return family;
}

}  // namespace neurarch::families
