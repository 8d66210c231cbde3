// DeiT (models/deit/modeling_deit.py, transformers 4.47.1): ViT's layers behind a CLS and a
// distillation token (two extra position rows). Unlike ViT, the patch embedding does not check the
// image size; the stored positions are simply added, so only an image with another patch count
// fails (unless interpolate_pos_encoding=True). The teacher class averages a CLS and a distillation
// classifier; the MIM decoder reads tokens [1:-1].
#include <fmt/format.h>

#include "families/vit_common.hpp"

namespace neurarch::families {
namespace deit_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  vit::EncoderSpec enc = vit::read_encoder(c);
  const std::int64_t hidden = enc.hidden;
  const vit::Geometry g = vit::read_geometry(in, {224, 224, false}, 16);
  const bool mim = in.class_name == "DeiTForMaskedImageModeling";
  const bool teacher = in.class_name == "DeiTForImageClassificationWithTeacher";

  Scope root = in.head == Head::Base ? Scope() : Scope("deit");
  Scope emb = root / "embeddings";
  auto x = vit::pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 2);
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  b.parameter(x, emb("distillation_token"), {1, 1, hidden}, graph::TensorRole::Other);
  if (mim) b.parameter(x, emb("mask_token"), {1, 1, hidden}, graph::TensorRole::Other);
  const std::int64_t rows = g.configured_patches() + 2;
  auto pos = vit::position_table(b, x, emb, rows, x.shape);
  if (x.shape.front() != rows)
    b.fail(pos, fmt::format("DeiT adds its {} learned positions as stored: a {}x{} image gives {} tokens. Run at "
                            "--image-size {} or pass interpolate_pos_encoding=True to forward()",
                            rows, g.input.h, g.input.w, x.shape.front(), g.configured.h));
  x = pos;

  enc.layers = root / "encoder" / "layer";
  x = vit::vit_layers(b, x, enc);
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});

  const std::int64_t labels = in.num_labels();
  if (in.head == Head::Base) {
    const std::int64_t pooled = c.dim({"pooler_output_size"}, hidden);
    return pooler(b, x, "Pooler", root / "pooler" / "dense", pooled, c.text({"pooler_act"}, "tanh"));
  }
  if (mim) return vit::simmim_decoder(b, x, x.shape.front() - 2, g, hidden, c.dim({"encoder_stride"}, 16));
  if (teacher) {
    auto cls = classifier(b, vit::first_token(x), "CLS_Classifier", Scope("cls_classifier"), hidden, labels, true);
    // The distillation token is x[:, 1]; both heads see one feature vector.
    auto dist = classifier(b, vit::first_token(x), "Distillation_Classifier", Scope("distillation_classifier"),
                           hidden, labels, true);
    return b.node(NodeType::Add, "Average_Logits", {labels}, {cls, dist});
  }
  return classifier(b, vit::first_token(x), "Classifier", Scope("classifier"), hidden, labels, true);
}

}  // namespace
}  // namespace deit_impl

const Family& deit_family() {
  static const Family family{"deit", "models/deit/modeling_deit.py",
                             classes("DeiT", {heads::ForImageClassification, {"ForImageClassificationWithTeacher", Head::ImageClassification}, {"ForMaskedImageModeling", Head::PreTraining}}),
                             deit_impl::build};
  return family;
}

}  // namespace neurarch::families
