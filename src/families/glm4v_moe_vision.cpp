// GLM-4.5V's vision tower on its own (Glm4vMoeVisionModel in models/glm4v_moe/modeling_glm4v_moe.py,
// transformers 5.24.0): GLM-4.1V's (glm4v.hpp); Glm4vMoeVisionConfig has Glm4vVisionConfig's defaults.
#include "families/glm4v.hpp"

namespace neurarch::families {

const Family& glm4v_moe_vision_family() {
  static const Family family{"glm4v_moe_vision", "models/glm4v_moe/modeling_glm4v_moe.py",
                             {{"Glm4vMoeVisionModel", Head::Base}}, glm4v::vision_model};
  return family;
}

}  // namespace neurarch::families
