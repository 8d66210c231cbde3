// DETA (models/deprecated/deta/modeling_deta.py, transformers 4.47.1; 5.x removed it): Deformable DETR's model
// (deformable_detr_common.hpp) with its own defaults (five levels, a 2048-wide encoder FFN, two-stage with box
// refinement, HF's ResNet-50 backbone at backbone.model) and pixel queries: the two-stage content queries add
// pix_trans and pix_trans_norm of the chosen encoder tokens. Only the base class is built: DetaForObjectDetection's
// head ties follow 4.x rules no pinned reference can check.
#include "families/deformable_detr_common.hpp"

namespace neurarch::families {
namespace deta_impl {
namespace {

deformable_detr::Layout layout() {
  deformable_detr::Layout l;
  l.levels = 5;
  l.encoder_ffn = 2048;
  l.queries = 900;
  l.two_stage = true;
  l.box_refine = true;
  // DetaBackboneWithPositionalEncodings keeps the backbone at backbone.model and trains the parameters whose names
  // hold "stages.1" to "stages.3" (the stem and the first stage stay frozen).
  l.backbone.path = {"backbone", "model"};
  l.backbone.timm_default = false;
  l.backbone.hf_trained = {"stages.1", "stages.2", "stages.3"};
  l.position_table = {"backbone", "position_embedding"};
  l.pixel_queries = true;
  return l;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) { return deformable_detr::build(in, b, layout()); }

}  // namespace
}  // namespace deta_impl

const Family& deta_family() {
  static const Family family{"deta", "models/deprecated/deta/modeling_deta.py", classes("Deta"), deta_impl::build};
  return family;
}

}  // namespace neurarch::families
