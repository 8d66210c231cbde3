// ViTPose backbone (models/vitpose_backbone/modeling_vitpose_backbone.py, transformers 4.57.6): ViT's
// layers (MLP at mlp.fc1/fc2) on a rectangular image, with a 2-pixel padded patch Conv2d and no CLS token
// (the table's CLS row is added to every patch). Only the configured image_size runs (no interpolation).
// With num_experts > 1 each MLP keeps hidden - part_features shared outputs and takes part_features from
// one expert picked per sample by dataset_index. The feature map is the layernormed last hidden state.
#include <algorithm>

#include <fmt/format.h>

#include "families/vit_common.hpp"

namespace neurarch::families {
namespace vitpose_backbone_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  const std::int64_t experts = c.dim({"num_experts"}, 1);
  const std::int64_t part = c.dim({"part_features"}, 256);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const bool qkv_bias = c.flag({"qkv_bias"}, true);
  const auto intermediate = static_cast<std::int64_t>(static_cast<double>(hidden) * c.number({"mlp_ratio"}, 4.0));
  const vit::Geometry g = vit::read_geometry(in, {256, 192, true}, 16);

  Scope emb("embeddings");
  Scope proj = emb / "patch_embeddings" / "projection";
  auto pixels = b.input({g.channels, g.input.h, g.input.w}, "pixels");
  // Conv2d(kernel = stride = patch, padding = 2).
  const std::int64_t rows = (g.input.h + 4 - g.patch.h) / g.patch.h + 1;
  const std::int64_t cols = (g.input.w + 4 - g.patch.w) / g.patch.w + 1;
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {rows * cols, hidden}, {pixels}, proj);
  b.parameter(x, proj("weight"), {hidden, g.channels, g.patch.h, g.patch.w}, graph::TensorRole::Conv);
  b.parameter(x, proj("bias"), {hidden}, graph::TensorRole::Bias);
  if (g.input_differs())
    b.fail(x, fmt::format("VitPose accepts only its configured image_size {}x{} (it has no position interpolation); "
                          "a {}x{} image is refused. Run at the configured size",
                          g.configured.h, g.configured.w, g.input.h, g.input.w));
  x = vit::position_table(b, x, emb, g.configured_patches() + 1, x.shape);
  if (rows * cols != g.configured_patches())
    b.fail(x, fmt::format("the padded patch grid {}x{} does not match the {} stored positions", rows, cols,
                          g.configured_patches()));
  if (experts > 1)
    b.note(fmt::format("VitPose: forward() needs dataset_index to pick one of the {} MLP experts", experts));

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    BlockNames n{i};
    Scope l = Scope("encoder") / "layer" / i;
    Scope attn = l / "attention";
    auto h = norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "layernorm_before"});
    h = attention(b, h, n.attention(),
                  {.hidden = hidden, .heads = heads, .module = attn, .q = attn / "attention" / "query",
                   .k = attn / "attention" / "key", .v = attn / "attention" / "value",
                   .o = attn / "output" / "dense", .qkv_bias = qkv_bias});
    auto residual = add(b, h, x, n.add(1));
    h = norm(b, residual, n.norm(2, NormKind::LayerNorm), {l / "layernorm_after"});
    Scope mlp = l / "mlp";
    if (experts == 1) {
      h = feed_forward(b, h, n.ffn(),
                       {.hidden = hidden, .intermediate = intermediate, .activation = act, .module = mlp,
                        .up = mlp / "fc1", .down = mlp / "fc2"});
    } else {
      h = b.node(NodeType::FeedForward, n.ffn(), h.shape, {h}, mlp);
      b.at(h).feed_forward = graph::FeedForwardAttrs{hidden, intermediate, act, false};
      linear_tensors(b, h, mlp / "fc1", hidden, intermediate, true);
      if (part > hidden) b.fail(h, fmt::format("part_features {} exceeds hidden_size {}", part, hidden));
      linear_tensors(b, h, mlp / "fc2", intermediate, std::max<std::int64_t>(0, hidden - part), true);
      for (std::int64_t e = 0; e < experts; ++e) linear_tensors(b, h, mlp / "experts" / e, intermediate, part, true);
    }
    x = add(b, h, residual, n.add(2));
  }
  b.set_block(-1);
  return norm(b, x, "Final_LayerNorm", {Scope("layernorm")});
}

}  // namespace
}  // namespace vitpose_backbone_impl

const Family& vitpose_backbone_family() {
  static const Family family{"vitpose_backbone", "models/vitpose_backbone/modeling_vitpose_backbone.py",
                             {{"VitPoseBackbone", Head::Base}}, vitpose_backbone_impl::build};
  return family;
}

}  // namespace neurarch::families
