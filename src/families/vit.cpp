// ViT (models/vit/modeling_vit.py, transformers 4.47.1; 4.57.6 adds pooler_output_size/pooler_act):
// a pre-norm encoder over a CLS token and the patches, with learned positions sized for the
// configured image. Its patch embedding refuses any other image size unless forward() is given
// interpolate_pos_encoding=True. ViTModel keeps its pooler (add_pooling_layer=True); every head
// class builds the model without it.
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace vit_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  vit::EncoderSpec enc = vit::read_encoder(c);
  const std::int64_t hidden = enc.hidden;
  const vit::Geometry g = vit::read_geometry(in, {224, 224, false}, 16);
  const bool mim = in.class_name == "ViTForMaskedImageModeling";

  Scope root = in.head == Head::Base ? Scope() : Scope("vit");
  Scope emb = root / "embeddings";
  auto x = vit::pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 1);
  vit::refuse_other_sizes(b, x, g, "ViT");
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  if (mim) b.parameter(x, emb("mask_token"), {1, 1, hidden}, graph::TensorRole::Other);
  x = vit::position_table(b, x, emb, g.configured_patches() + 1, x.shape);

  enc.layers = root / "encoder" / "layer";
  x = vit::vit_layers(b, x, enc);
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});

  if (in.head == Head::Base) {
    // ViTConfig.pooler_output_size falls back to hidden_size when unset (and 4.47.1 lacks it).
    const std::int64_t pooled = c.dim({"pooler_output_size"}, hidden);
    return pooler(b, x, "Pooler", root / "pooler" / "dense", pooled, c.text({"pooler_act"}, "tanh"));
  }
  if (mim) {
    const std::int64_t stride = c.dim({"encoder_stride"}, 16);
    if (stride != g.patch.h)
      b.note("ViTForMaskedImageModeling: patch_size differs from encoder_stride, so forward() refuses "
             "bool_masked_pos (the reconstruction would not match the input size)");
    return vit::simmim_decoder(b, x, x.shape.front() - 1, g, hidden, stride);
  }
  return classifier(b, vit::first_token(x), "Classifier", Scope("classifier"), hidden, in.num_labels(), true);
}

}  // namespace
}  // namespace vit_impl

const Family& vit_family() {
  static const Family family{"vit", "models/vit/modeling_vit.py",
                             classes("ViT",
                                     {heads::ForImageClassification, {"ForMaskedImageModeling", Head::PreTraining}}),
                             vit_impl::build};
  return family;
}

}  // namespace neurarch::families
