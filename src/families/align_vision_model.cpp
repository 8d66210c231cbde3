// ALIGN's image tower alone (models/align/modeling_align.py, transformers 5.24): AlignVisionModel keeps its modules
// at the root (embeddings, encoder.blocks); pooler_output is the last block pooled over space (align_common.hpp).
#include "families/align_common.hpp"

namespace neurarch::families {
namespace align_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) { return align::vision_tower(in, b, in.config, Scope()).pooled; }

}  // namespace
}  // namespace align_vision_model_impl

const Family& align_vision_model_family() {
  static const Family family{"align_vision_model", "models/align/modeling_align.py", classes("AlignVision"), align_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
