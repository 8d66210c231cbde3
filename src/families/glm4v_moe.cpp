// GLM-4.5V (models/glm4v_moe/modeling_glm4v_moe.py + configuration_glm4v_moe.py, transformers 4.57.6): GLM-4.1V's
// vision transformer and composite layout (glm4v.cpp; Glm4vMoeVisionConfig has Glm4vVisionConfig's defaults)
// around GLM-4.5V's text decoder (glm4v_moe_text.hpp: a GLM-4.5 MoE decoder with biased q/k/v and M-RoPE), its
// experts saved per expert. The language model is always that decoder, whatever text_config's model_type says
// (4.57.6's text config even says "Glm4vMoe_text").
#include "families/glm4v.hpp"
#include "families/glm4v_moe_text.hpp"

namespace neurarch::families {
namespace glm4v_moe_impl {
namespace {

graph::Value build_text(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, glm4v_moe::text_spec(in.config, false));
}

// The text decoder as the composite model holds it (not registered: the glm4v_moe_text family is the standalone).
const Family& text_model() {
  static const Family family{"glm4v_moe_text", "models/glm4v_moe/modeling_glm4v_moe.py", classes("Glm4vMoeText"),
                             build_text};
  return family;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Family& text = text_model();
  return glm4v::conditional_generation(in, b, {&text, &text.classes.front()});
}

}  // namespace
}  // namespace glm4v_moe_impl

const Family& glm4v_moe_family() {
  static const Family family{"glm4v_moe", "models/glm4v_moe/modeling_glm4v_moe.py",
                             classes("Glm4vMoe", {heads::VisionLanguageGeneration}), glm4v_moe_impl::build};
  return family;
}

}  // namespace neurarch::families
