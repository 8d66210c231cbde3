// SamHQVisionModel (models/sam_hq/modeling_sam_hq.py, transformers 4.57.6): SAM's image encoder unchanged (the HQ
// encoder also hands out its intermediate layers' states, which adds no tensor), under `vision_encoder`.
#include "families/sam_common.hpp"

namespace neurarch::families {
namespace sam_hq_vision_model_impl {
namespace {
graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return sam::vision_encoder(in, b, in.config, graph::Scope("vision_encoder"));
}
}  // namespace
}  // namespace sam_hq_vision_model_impl

const Family& sam_hq_vision_model_family() {
  static const Family family{"sam_hq_vision_model", "models/sam_hq/modeling_sam_hq.py",
                             {{"SamHQVisionModel", Head::Base}}, sam_hq_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
