// GLM-4.5V's text decoder (Glm4vMoeTextModel in models/glm4v_moe/modeling_glm4v_moe.py + configuration_glm4v_moe.py,
// transformers 5.24.0): a GLM-4.5 decoder (glm4_moe.cpp: two RMSNorms per layer, dense first_k_dense_replace
// layers, then routed experts with a shared one and an fp32 e_score_correction_bias) whose attention biases q/k/v
// by default, derives head_dim = hidden // heads (4096 // 96 = 42) and rotates with M-RoPE (positions, not
// tensors); Glm4vMoeTextConfig's defaults. On its own, save_pretrained keeps the routed experts fused (5.24
// registers no conversion back for this model type).
#include "families/glm4v_moe_text.hpp"

#include "families/glm4_moe.hpp"

namespace neurarch::families {

namespace glm4v_moe {

decoder::DecoderSpec text_spec(const Config& text, bool fused_experts) {
  return glm4_moe::spec(text,
                        {.vocab = 151424, .hidden = 4096, .intermediate = 10944, .layers = 46, .heads = 96,
                         .kv_heads = 8, .positions = 65536, .activation = "silu", .tie_word_embeddings = false},
                        true, {.fused_experts = fused_experts});
}

}  // namespace glm4v_moe

namespace glm4v_moe_text_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, glm4v_moe::text_spec(in.config, true));
}

}  // namespace
}  // namespace glm4v_moe_text_impl

const Family& glm4v_moe_text_family() {
  static const Family family{"glm4v_moe_text", "models/glm4v_moe/modeling_glm4v_moe.py", classes("Glm4vMoeText"),
                             glm4v_moe_text_impl::build};
  return family;
}

}  // namespace neurarch::families
