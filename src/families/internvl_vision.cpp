// InternViT alone (InternVLVisionModel in models/internvl/modeling_internvl.py, transformers 4.57.6): the tower of
// internvl_common.hpp over one image of image_size (448 px, 14-px patches: 1 + 1024 tokens by default). Its output
// is last_hidden_state; the mean-pooled output is computed from it without a module.
#include "families/internvl_common.hpp"

namespace neurarch::families {
namespace internvl_vision_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  return internvl::vision_tower(in, b, in.config).sequence;
}

}  // namespace
}  // namespace internvl_vision_impl

const Family& internvl_vision_family() {
  static const Family family{"internvl_vision", "models/internvl/modeling_internvl.py",
                             classes("InternVLVision"), internvl_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
