// I-JEPA (models/ijepa/modeling_ijepa.py, transformers 4.47.1): ViT's encoder with no CLS token, so
// the learned positions cover the patches alone. IJepaModel defaults to add_pooling_layer=False
// (no pooler tensors), and the classifier reads the mean of all tokens. The patch embedding refuses
// another image size unless forward() is given interpolate_pos_encoding=True.
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace ijepa_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  vit::EncoderSpec enc = vit::read_encoder(c);
  const std::int64_t hidden = enc.hidden;
  const vit::Geometry g = vit::read_geometry(in, {224, 224, false}, 16);

  Scope root = in.head == Head::Base ? Scope() : Scope("ijepa");
  Scope emb = root / "embeddings";
  auto x = vit::pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 0);
  vit::refuse_other_sizes(b, x, g, "I-JEPA");
  x = vit::position_table(b, x, emb, g.configured_patches(), x.shape);

  enc.layers = root / "encoder" / "layer";
  x = vit::vit_layers(b, x, enc);
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});

  if (in.head == Head::ImageClassification) {
    auto pooled = b.node(NodeType::Pooler, "Mean_Pool", {hidden}, {x});
    x = classifier(b, pooled, "Classifier", Scope("classifier"), hidden, in.num_labels(), true);
  }
  return x;
}

}  // namespace
}  // namespace ijepa_impl

const Family& ijepa_family() {
  static const Family family{"ijepa", "models/ijepa/modeling_ijepa.py",
                             classes("IJepa", {heads::ForImageClassification}), ijepa_impl::build};
  return family;
}

}  // namespace neurarch::families
