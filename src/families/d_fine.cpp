// D-FINE (models/d_fine/modular_d_fine.py, transformers 5.24; the shared default is 4.57.6, saved in the same
// layout): RT-DETR's model (rt_detr_common.hpp) with these differences. Backbone: HGNet-V2 (hgnet_v2.hpp) with frozen
// batch norm. Hybrid encoder: unactivated lateral convs, RepNCSPELAN4 blocks (round(3 depth_mult) RepVGG blocks per
// CSP branch) for FPN and PAN, SCDown (1x1 then depthwise 3x3 stride 2) to downsample. Decoder: the projections are
// identities when decoder_in_channels[-1] is d_model; the cross-attention has no value or output projection and
// keeps num_points_scale (decoder_n_points may list points per level); a gateway (sigmoid gates, LayerNorm) replaces
// the cross-attention's residual norm; pre_bbox_head, the frozen reg_scale and up, an LQE MLP per layer, and
// decoder_layers - eval_idx - 1 extra layers. DFineForObjectDetection's box heads predict 4 (max_num_bins + 1)
// distribution logits; its top-level heads are tied to the decoder's copies, which are saved.
#include "families/rt_detr_common.hpp"

namespace neurarch::families {
namespace d_fine_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return rt_detr::build(in, b, rt_detr::Layout{.variant = rt_detr::Variant::DFine});
}

}  // namespace
}  // namespace d_fine_impl

const Family& d_fine_family() {
  static const Family family{"d_fine", "models/d_fine/modular_d_fine.py",
                             classes("DFine", {heads::ForObjectDetection}), d_fine_impl::build};
  return family;
}

}  // namespace neurarch::families
