// GLM-4.5V (models/glm4v_moe/modeling_glm4v_moe.py + configuration_glm4v_moe.py, transformers 4.57.6): GLM-4.1V's
// vision transformer and composite layout (glm4v.cpp; Glm4vMoeVisionConfig has Glm4vVisionConfig's defaults)
// around a GLM-4.5 text decoder (glm4_moe.cpp: two RMSNorms per layer, dense first_k_dense_replace layers, then
// routed experts with a shared one and an fp32 e_score_correction_bias) whose attention biases q/k/v by default,
// derives head_dim = hidden // heads (4096 // 96 = 42) and rotates with M-RoPE (positions, not tensors). The text
// model is no model type of its own (4.57.6's text config even says "Glm4vMoe_text"), so it is built here rather
// than looked up by text_config's model_type.
#include "families/glm4_moe.hpp"
#include "families/glm4v.hpp"

namespace neurarch::families {
namespace {

graph::Value build_text(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(
      in, b,
      glm4_moe::spec(in.config,
                     {.vocab = 151424, .hidden = 4096, .intermediate = 10944, .layers = 46, .heads = 96, .kv_heads = 8,
                      .positions = 65536, .activation = "silu", .tie_word_embeddings = false},
                     true));
}

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

const Family& glm4v_moe_family() {
  static const Family family{"glm4v_moe", "models/glm4v_moe/modeling_glm4v_moe.py",
                             classes("Glm4vMoe", {heads::VisionLanguageGeneration}), build};
  return family;
}

}  // namespace neurarch::families
