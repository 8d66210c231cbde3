// Sam2VisionModel (models/sam2/modeling_sam2.py, transformers 4.57.6 and 5.24): the Hiera-Det backbone
// (backbone_config) under `backbone` and the FPN neck under `neck` (sam2_common). The graph ends in the coarsest
// level handed on, SAM 2's image embedding.
#include "families/sam2_common.hpp"

namespace neurarch::families {
namespace sam2_vision_model_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return sam2::vision_model(in, b, in.config, graph::Scope()).back();
}
}  // namespace
}  // namespace sam2_vision_model_impl

const Family& sam2_vision_model_family() {
  static const Family family{"sam2_vision_model", "models/sam2/modeling_sam2.py", {{"Sam2VisionModel", Head::Base}},
                             sam2_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
