// ViT-MSN (models/vit_msn/modeling_vit_msn.py, transformers 4.47.1): ViT's encoder, pre-trained with
// masked siamese networks. The base model has no pooler at all; the classifier reads the CLS token.
// Like ViT, the patch embedding refuses an image of another size unless forward() is given
// interpolate_pos_encoding=True.
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace vit_msn_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  vit::EncoderSpec enc = vit::read_encoder(c);
  const std::int64_t hidden = enc.hidden;
  const vit::Geometry g = vit::read_geometry(in, {224, 224, false}, 16);

  Scope root = in.head == Head::Base ? Scope() : Scope("vit");
  Scope emb = root / "embeddings";
  auto x = vit::pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 1);
  vit::refuse_other_sizes(b, x, g, "ViT-MSN");
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  x = vit::position_table(b, x, emb, g.configured_patches() + 1, x.shape);

  enc.layers = root / "encoder" / "layer";
  x = vit::vit_layers(b, x, enc);
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});

  if (in.head == Head::ImageClassification)
    x = classifier(b, vit::first_token(x), "Classifier", Scope("classifier"), hidden, in.num_labels(), true);
  return x;
}

}  // namespace
}  // namespace vit_msn_impl

const Family& vit_msn_family() {
  static const Family family{"vit_msn", "models/vit_msn/modeling_vit_msn.py",
                             classes("ViTMSN", {heads::ForImageClassification}), vit_msn_impl::build};
  return family;
}

}  // namespace neurarch::families
