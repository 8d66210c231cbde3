// AIMv2's vision encoder alone (models/aimv2/modeling_aimv2.py, transformers 4.57.6): Aimv2VisionModel keeps its
// modules at the root (embeddings, encoder, rms_norm, head); pooler_output is the attention probe's token when
// use_head, else there is none and the normed sequence is the output. See aimv2_common.hpp.
#include "families/aimv2_common.hpp"

namespace neurarch::families {
namespace aimv2_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  return aimv2::vision_tower(in, b, in.config, Scope()).pooled;
}

}  // namespace
}  // namespace aimv2_vision_model_impl

const Family& aimv2_vision_model_family() {
  static const Family family{"aimv2_vision_model", "models/aimv2/modeling_aimv2.py", classes("Aimv2Vision"), aimv2_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
