// MaskFormer's Swin backbone as a model (models/maskformer/modeling_maskformer_swin.py, transformers 4.47.1 and
// 5.24: MaskFormerSwinModel): SwinModel's embeddings, stages, final layernorm and average pooler under the same
// names; its layers keep the configured window and shift on grids smaller than the window (the grid is padded to
// one whole window) where Swin shrinks the window to the grid. MaskFormerSwinBackbone (per-stage
// hidden_states_norms) is not built.
#include "families/swin_common.hpp"

namespace neurarch::families {
namespace maskformer_swin_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return swin::model(in, b, {.shrink_window = false});
}
}  // namespace
}  // namespace maskformer_swin_impl

const Family& maskformer_swin_family() {
  static const Family family{"maskformer-swin", "models/maskformer/modeling_maskformer_swin.py",
                             {{"MaskFormerSwinModel", Head::Base}}, maskformer_swin_impl::build};
  return family;
}

}  // namespace neurarch::families
