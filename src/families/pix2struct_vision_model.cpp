// Pix2Struct's vision encoder alone (models/pix2struct/modeling_pix2struct.py, transformers 5.24):
// Pix2StructVisionModel keeps its modules at the root (embeddings, encoder.layer, layernorm); see pix2struct.hpp.
#include "families/pix2struct.hpp"

namespace neurarch::families {
namespace pix2struct_vision_model_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  pix2struct::VisionEncoder e = pix2struct::read_vision(in.config);
  e.root = Scope();
  return pix2struct::vision_encoder(in, b, e);
}

}  // namespace
}  // namespace pix2struct_vision_model_impl

const Family& pix2struct_vision_model_family() {
  static const Family family{"pix2struct_vision_model", "models/pix2struct/modeling_pix2struct.py",
                             classes("Pix2StructVision"), pix2struct_vision_model_impl::build};
  return family;
}

}  // namespace neurarch::families
