// ConvNeXt V2 (models/convnextv2/modeling_convnextv2.py, transformers 4.47.1): ConvNeXt's stem, stages and
// downsampling under the same module names, with two changes in each layer: a Global Response Normalization
// (grn.weight / grn.bias, [1, 1, 1, 4C]) between the activation and pwconv2, and no layer scale (the config
// has no layer_scale_init_value). The pooled output is the LayerNorm of the spatial mean.
#include "families/convnext_common.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace convnextv2_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return convnext::model(in, b, {.prefix = "convnextv2", .grn = true});
}

}  // namespace
}  // namespace convnextv2_impl

const Family& convnextv2_family() {
  static const Family family{"convnextv2", "models/convnextv2/modeling_convnextv2.py",
                             classes("ConvNextV2", {heads::ForImageClassification}), convnextv2_impl::build};
  return family;
}

}  // namespace neurarch::families
