// ConvNeXt (models/convnext/modeling_convnext.py, transformers 4.47.1): a patch_size-stride conv stem with a
// channels-first LayerNorm, then stages whose first one keeps the stem's width and resolution and whose others
// downsample with a channels-first LayerNorm + 2x2 stride-2 conv; each layer is a 7x7 depthwise conv, then, over
// the channels-last view, LayerNorm -> pwconv1 (4x) -> act -> pwconv2 -> layer_scale_parameter (when
// layer_scale_init_value > 0), added to the input. The pooled output is the LayerNorm of the spatial mean.
// Any image size runs; shapes of the channels-last sublayers are shown as [H, W, C].
#include "families/convnext_common.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace convnext_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) { return convnext::model(in, b, {.prefix = "convnext"}); }

}  // namespace
}  // namespace convnext_impl

const Family& convnext_family() {
  static const Family family{"convnext", "models/convnext/modeling_convnext.py",
                             classes("ConvNext", {heads::ForImageClassification}), convnext_impl::build};
  return family;
}

}  // namespace neurarch::families
