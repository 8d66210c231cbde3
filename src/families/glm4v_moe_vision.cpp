// GLM-4.5V's vision tower on its own (Glm4vMoeVisionModel in models/glm4v_moe/modeling_glm4v_moe.py,
// transformers 5.24.0): GLM-4.1V's (glm4v.hpp); Glm4vMoeVisionConfig has Glm4vVisionConfig's defaults.
#include <fmt/format.h>

#include "families/glm4v.hpp"

namespace neurarch::families {
namespace glm4v_moe_vision_impl {
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
}  // namespace glm4v_moe_vision_impl

const Family& glm4v_moe_vision_family() {
  static const Family family{"glm4v_moe_vision", "models/glm4v_moe/modeling_glm4v_moe.py",
                             {{"Glm4vMoeVisionModel", Head::Base}}, glm4v_moe_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
