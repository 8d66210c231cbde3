// Deformable DETR (models/deformable_detr/modeling_deformable_detr.py): see deformable_detr_common.hpp.
// DeformableDetrForObjectDetection adds class_embed / bbox_embed per decoder layer, tied as transformers 5.24 ties
// them, and the variants with_box_refine and two_stage.
#include "families/deformable_detr_common.hpp"

namespace neurarch::families {
namespace deformable_detr_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return deformable_detr::build(in, b, deformable_detr::Layout{});
}

}  // namespace
}  // namespace deformable_detr_impl

const Family& deformable_detr_family() {
  static const Family family{"deformable_detr", "models/deformable_detr/modeling_deformable_detr.py",
                             classes("DeformableDetr", {heads::ForObjectDetection}), deformable_detr_impl::build};
  return family;
}

}  // namespace neurarch::families
