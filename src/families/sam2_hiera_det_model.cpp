// Sam2HieraDetModel (models/sam2/modeling_sam2.py, transformers 4.57.6 and 5.24): SAM 2's Hiera-Det backbone
// (sam2_common) alone, its tensors at the top level; it ends in the last stage's tokens.
#include "families/sam2_common.hpp"

namespace neurarch::families {
namespace sam2_hiera_det_model_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return sam2::hiera_det(in, b, in.config, graph::Scope()).back().tokens;
}
}  // namespace
}  // namespace sam2_hiera_det_model_impl

const Family& sam2_hiera_det_model_family() {
  static const Family family{"sam2_hiera_det_model", "models/sam2/modeling_sam2.py",
                             {{"Sam2HieraDetModel", Head::Base}}, sam2_hiera_det_model_impl::build};
  return family;
}

}  // namespace neurarch::families
