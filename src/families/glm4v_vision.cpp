// GLM-4.1V's vision tower on its own (Glm4vVisionModel in models/glm4v/modeling_glm4v.py, transformers 5.24.0):
// glm4v's vision transformer, downsampling convolution and merger at the top level, ending in the merged image
// features; Glm4vVisionConfig's defaults.
#include <fmt/format.h>

#include "families/glm4v.hpp"

namespace neurarch::families {
namespace glm4v_vision_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  glm4v::Grid grid;
  auto out = glm4v::vision(in, b, in.config, grid);
  b.note(fmt::format("a {0}x{0} photo is resized to {1}x{1}: {2} patches through the vision tower, {3} merged image "
                     "features; --image-size sets the photo's side",
                     grid.photo, grid.side, grid.patches, grid.tokens));
  return out;
}

}  // namespace
}  // namespace glm4v_vision_impl

const Family& glm4v_vision_family() {
  static const Family family{"glm4v_vision", "models/glm4v/modeling_glm4v.py",
                             {{"Glm4vVisionModel", Head::Base}}, glm4v_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
