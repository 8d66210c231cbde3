// GLM-4.1V's vision tower on its own (Glm4vVisionModel in models/glm4v/modeling_glm4v.py, transformers 5.24.0):
// glm4v's vision transformer, downsampling convolution and merger at the top level, ending in the merged image
// features; Glm4vVisionConfig's defaults.
#include "families/glm4v.hpp"

namespace neurarch::families {

const Family& glm4v_vision_family() {
  static const Family family{"glm4v_vision", "models/glm4v/modeling_glm4v.py",
                             {{"Glm4vVisionModel", Head::Base}}, glm4v::vision_model};
  return family;
}

}  // namespace neurarch::families
