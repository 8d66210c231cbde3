// Conditional DETR (models/conditional_detr/modeling_conditional_detr.py, transformers 4.47.1): DETR's
// backbone, projection and post-norm encoder (detr_common.hpp), with a decoder whose attention projections
// live on the layer (sa_* for self-attention; ca_* for cross-attention, where queries and keys are
// concatenated with sine embeddings of per-query reference points, so their heads are twice as wide as
// the values'). 300 queries by default; the class head has num_labels outputs (sigmoid focal loss, no
// "no object" class).
#include "families/detr_common.hpp"

namespace neurarch::families {
namespace conditional_detr_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return detr::build(in, b, detr::Layout{.conditional = true, .no_object_class = false, .default_queries = 300});
}

}  // namespace
}  // namespace conditional_detr_impl

const Family& conditional_detr_family() {
  static const Family family{"conditional_detr", "models/conditional_detr/modeling_conditional_detr.py",
                             classes("ConditionalDetr", {heads::ForObjectDetection}), conditional_detr_impl::build};
  return family;
}

}  // namespace neurarch::families
