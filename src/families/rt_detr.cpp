// RT-DETR (models/rt_detr/modeling_rt_detr.py): see rt_detr_common.hpp. RTDetrForObjectDetection puts a class head
// and a box head per decoder layer inside the decoder (model.decoder.class_embed.i / bbox_embed.i, untied).
#include "families/rt_detr_common.hpp"

namespace neurarch::families {
namespace rt_detr_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) { return rt_detr::build(in, b, rt_detr::Layout{}); }

}  // namespace
}  // namespace rt_detr_impl

const Family& rt_detr_family() {
  static const Family family{"rt_detr", "models/rt_detr/modeling_rt_detr.py",
                             classes("RTDetr", {heads::ForObjectDetection}), rt_detr_impl::build};
  return family;
}

}  // namespace neurarch::families
