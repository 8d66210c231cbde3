// ViT-MAE (models/vit_mae/modeling_vit_mae.py, transformers 4.47.1): ViT's encoder on a random subset
// of patches: the (frozen, saved) sin-cos positions are added, int(patches * (1 - mask_ratio)) patches are
// kept and the CLS token prepended, so the encoder sees far fewer tokens than the image has patches.
// ViTMAEForPreTraining adds a narrower ViT decoder that refills the sequence with a mask token and predicts
// patch^2 * channels pixels per patch. Other image sizes need interpolate_pos_encoding=True.
#include <fmt/format.h>

#include "families/vit_common.hpp"

namespace neurarch::families {
namespace vit_mae_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  vit::EncoderSpec enc = vit::read_encoder(c);
  const std::int64_t hidden = enc.hidden;
  const vit::Geometry g = vit::read_geometry(in, {224, 224, false}, 16);
  const double mask_ratio = c.number({"mask_ratio"}, 0.75);

  Scope root = in.head == Head::Base ? Scope() : Scope("vit");
  Scope emb = root / "embeddings";
  auto x = vit::pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 1);
  vit::refuse_other_sizes(b, x, g, "ViT-MAE");
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  const std::int64_t patches = x.shape.front() - 1;
  // Python's int() truncates the same IEEE product.
  const auto kept = static_cast<std::int64_t>(static_cast<double>(patches) * (1.0 - mask_ratio));
  x = vit::position_table(b, x, emb, g.configured_patches() + 1, {1 + kept, hidden});
  b.note(fmt::format("ViT-MAE keeps {} of {} patches (mask_ratio {}): the encoder runs on {} tokens", kept, patches,
                     mask_ratio, 1 + kept));

  enc.layers = root / "encoder" / "layer";
  x = vit::vit_layers(b, x, enc);
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  if (in.head != Head::PreTraining) return x;

  Scope dec("decoder");
  vit::EncoderSpec d = enc;
  d.hidden = c.dim({"decoder_hidden_size"}, 512);
  d.count = c.dim({"decoder_num_hidden_layers"}, 8);
  d.heads = c.dim({"decoder_num_attention_heads"}, 16);
  d.intermediate = c.dim({"decoder_intermediate_size"}, 2048);
  d.layers = dec / "decoder_layers";
  d.first_block = enc.count;
  x = dense(b, x, "Decoder_Embed", dec / "decoder_embed", hidden, d.hidden, true);
  // Mask tokens fill the dropped patches before the decoder's own (frozen) positions are added.
  auto pos = b.node(NodeType::LearnedPosEmbed, "Decoder_Pos_Embed", {1 + patches, d.hidden}, {x}, dec);
  b.parameter(pos, dec("mask_token"), {1, 1, d.hidden}, graph::TensorRole::Other);
  b.parameter(pos, dec("decoder_pos_embed"), {1, g.configured_patches() + 1, d.hidden}, graph::TensorRole::Embedding);
  x = vit::vit_layers(b, pos, d);
  x = norm(b, x, "Decoder_LayerNorm", {dec / "decoder_norm"});
  const std::int64_t pixels = g.patch.h * g.patch.w * g.channels;
  auto pred = dense(b, x, "Decoder_Pred", dec / "decoder_pred", d.hidden, pixels, true);
  // The CLS row of the prediction is dropped: the logits cover the patches.
  return Value{pred.node, {patches, pixels}};
}

}  // namespace
}  // namespace vit_mae_impl

const Family& vit_mae_family() {
  static const Family family{"vit_mae", "models/vit_mae/modeling_vit_mae.py",
                             classes("ViTMAE", {heads::ForPreTraining}), vit_mae_impl::build};
  return family;
}

}  // namespace neurarch::families
