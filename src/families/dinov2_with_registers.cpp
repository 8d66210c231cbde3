// DINOv2 with registers (models/dinov2_with_registers/modeling_dinov2_with_registers.py, transformers
// 4.57.6): DINOv2's layers and interpolated positions (any image size runs), plus
// num_register_tokens learned tokens inserted after the CLS token once the positions are added (the
// position table covers CLS + patches only). Unlike DINOv2 the default patch is 16. The classifier reads
// the CLS token concatenated with the mean of the patch tokens (registers excluded).
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace dinov2_with_registers_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  vit::EncoderSpec enc = vit::read_dinov2_encoder(c);
  const std::int64_t hidden = enc.hidden;
  const vit::Geometry g = vit::read_geometry(in, {224, 224, false}, 16);
  const std::int64_t registers = c.integer({"num_register_tokens"}, 4);

  Scope root = in.head == Head::Base ? Scope() : Scope("dinov2_with_registers");
  Scope emb = root / "embeddings";
  auto x = vit::pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 1 + registers);
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  b.parameter(x, emb("mask_token"), {1, hidden}, graph::TensorRole::Other);
  b.parameter(x, emb("register_tokens"), {1, registers, hidden}, graph::TensorRole::Other);
  x = vit::position_table(b, x, emb, g.configured_patches() + 1, x.shape);

  enc.layers = root / "encoder" / "layer";
  x = vit::dinov2_layers(b, x, enc);
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});

  if (in.head == Head::ImageClassification) {
    auto pooled = b.node(NodeType::Pooler, "CLS_Mean_Pool", {2 * hidden}, {x});
    x = classifier(b, pooled, "Classifier", Scope("classifier"), 2 * hidden, in.num_labels(), true);
  }
  return x;
}

}  // namespace
}  // namespace dinov2_with_registers_impl

const Family& dinov2_with_registers_family() {
  static const Family family{"dinov2_with_registers", "models/dinov2_with_registers/modeling_dinov2_with_registers.py",
                             classes("Dinov2WithRegisters", {heads::ForImageClassification}), dinov2_with_registers_impl::build};
  return family;
}

}  // namespace neurarch::families
