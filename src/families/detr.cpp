// DETR (models/detr/modeling_detr.py, transformers 4.47.1): see detr_common.hpp for the layout. Post-norm
// encoder and decoder layers, decoder.layernorm after the last layer (after every layer with
// auxiliary_loss). DetrForObjectDetection adds class_labels_classifier (num_labels + 1 for "no object") and
// a 3-layer bbox_predictor MLP under the base model's "model." prefix.
#include "families/detr_common.hpp"

namespace neurarch::families {
namespace detr_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return detr::build(in, b, detr::Layout{});
}

}  // namespace
}  // namespace detr_impl

const Family& detr_family() {
  static const Family family{"detr", "models/detr/modeling_detr.py",
                             classes("Detr", {heads::ForObjectDetection}), detr_impl::build};
  return family;
}

}  // namespace neurarch::families
