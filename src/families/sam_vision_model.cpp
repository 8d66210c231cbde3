// SamVisionModel (models/sam/modeling_sam.py + configuration_sam.py, transformers 4.57.6): SAM's image encoder
// alone, under `vision_encoder`, ending in the neck's [output_channels, grid, grid] image embedding.
#include "families/sam_common.hpp"

namespace neurarch::families {
namespace sam_vision_model_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return sam::vision_encoder(in, b, in.config, graph::Scope("vision_encoder"));
}
}  // namespace
}  // namespace sam_vision_model_impl

const Family& sam_vision_model_family() {
  static const Family family{"sam_vision_model", "models/sam/modeling_sam.py", {{"SamVisionModel", Head::Base}},
                             sam_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
