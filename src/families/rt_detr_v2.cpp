// RT-DETR v2 (models/rt_detr_v2/modular_rt_detr_v2.py, transformers 5.24; the shared default is 4.57.6): RT-DETR's
// model (rt_detr_common.hpp) whose decoder cross-attention samples decoder_n_levels levels, scaling the offsets by
// the n_points_scale buffer (decoder_offset_scale and decoder_method change no tensor). RTDetrV2ForObjectDetection
// keeps its heads at the top level too (class_embed.i, bbox_embed.i), tied to the decoder's copies, which are saved.
#include "families/rt_detr_common.hpp"

namespace neurarch::families {
namespace rt_detr_v2_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return rt_detr::build(in, b, rt_detr::Layout{.variant = rt_detr::Variant::V2});
}

}  // namespace
}  // namespace rt_detr_v2_impl

const Family& rt_detr_v2_family() {
  static const Family family{"rt_detr_v2", "models/rt_detr_v2/modular_rt_detr_v2.py",
                             classes("RTDetrV2", {heads::ForObjectDetection}), rt_detr_v2_impl::build};
  return family;
}

}  // namespace neurarch::families
