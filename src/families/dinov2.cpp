// DINOv2 (models/dinov2/modeling_dinov2.py, transformers 4.47.1): a pre-norm ViT with layer
// scale after attention and MLP, CLS + mask tokens, and position embeddings interpolated to the
// input size (so any image size runs). use_swiglu_ffn swaps the MLP for a fused SwiGLU whose
// width is rounded to a multiple of 8.
#include "families/family.hpp"

namespace neurarch::families {
namespace dinov2_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  const std::int64_t mlp_ratio = c.dim({"mlp_ratio"}, 4);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t patch = c.dim({"patch_size"}, 14);
  const std::int64_t configured_size = c.dim({"image_size"}, 224);
  const bool qkv_bias = c.flag({"qkv_bias"}, true);
  const bool swiglu = c.flag({"use_swiglu_ffn"}, false);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const std::int64_t size = in.image_size(configured_size);

  Scope root = in.head == Head::Base ? Scope() : Scope("dinov2");
  Scope emb = root / "embeddings";

  auto x = b.input({channels, size, size}, "pixels");
  x = patch_embed(b, x, "Patch_Embed", {emb / "patch_embeddings" / "projection", channels, hidden, patch, 1});
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  b.parameter(x, emb("mask_token"), {1, hidden}, graph::TensorRole::Other);
  auto pos = b.node(NodeType::LearnedPosEmbed, "Learned_Pos_Embed", x.shape, {x}, emb);
  const std::int64_t stored = (configured_size / patch) * (configured_size / patch) + 1;
  b.parameter(pos, emb("position_embeddings"), {1, stored, hidden}, graph::TensorRole::Embedding);
  x = pos;

  std::int64_t intermediate = hidden * mlp_ratio;
  if (swiglu) intermediate = (intermediate * 2 / 3 + 7) / 8 * 8;
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    Scope l = root / "encoder" / "layer" / i;
    Scope attn = l / "attention";
    PreNormLayer layer;
    layer.norm1 = {l / "norm1"};
    layer.attention = {.hidden = hidden, .heads = heads, .module = attn,
                       .q = attn / "attention" / "query", .k = attn / "attention" / "key",
                       .v = attn / "attention" / "value", .o = attn / "output" / "dense", .qkv_bias = qkv_bias};
    layer.scale1 = l("layer_scale1.lambda1");
    layer.norm2 = {l / "norm2"};
    if (swiglu)
      layer.ffn = {.hidden = hidden, .intermediate = intermediate, .activation = "silu", .gated = true,
                   .module = l / "mlp", .down = l / "mlp" / "weights_out", .gate_up = l / "mlp" / "weights_in"};
    else
      layer.ffn = {.hidden = hidden, .intermediate = intermediate, .activation = act, .module = l / "mlp",
                   .up = l / "mlp" / "fc1", .down = l / "mlp" / "fc2"};
    layer.scale2 = l("layer_scale2.lambda1");
    x = pre_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});

  if (in.head == Head::ImageClassification) {
    // The classifier reads the CLS token concatenated with the mean of the patch tokens.
    auto pooled = b.node(NodeType::Pooler, "CLS_Mean_Pool", {2 * hidden}, {x});
    x = classifier(b, pooled, "Classifier", Scope("classifier"), 2 * hidden, in.num_labels(), true);
  }
  return x;
}

}  // namespace
}  // namespace dinov2_impl

const Family& dinov2_family() {
  static const Family family{"dinov2", "models/dinov2/modeling_dinov2.py",
                             classes("Dinov2", {heads::ForImageClassification}), dinov2_impl::build};
  return family;
}

}  // namespace neurarch::families
