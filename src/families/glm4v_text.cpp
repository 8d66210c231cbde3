// GLM-4.1V's text decoder (Glm4vTextModel in models/glm4v/modeling_glm4v.py + configuration_glm4v.py, transformers
// 4.57.6): GLM-4-0414's layer (glm4.cpp: fused gate_up_proj, four RMSNorms per layer: input_layernorm,
// post_self_attn_layernorm, post_attention_layernorm, post_mlp_layernorm) with q/k/v always biased, o_proj not,
// head_dim = hidden / heads, and multimodal RoPE (mrope_section): three position streams (time, height, width)
// rotate sections of q and k, which changes the positions, not the tensors or the shapes.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace glm4v_text_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 151552, .hidden = 4096, .intermediate = 13696, .layers = 40, .heads = 32, .kv_heads = 2,
          .positions = 32768, .activation = "silu", .tie_word_embeddings = false});
  s.head_dim = s.hidden / s.heads;  // the attention ignores a head_dim key
  s.qkv_bias = true;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.names.gate_up = "gate_up_proj";
  s.names.post_attn_norm = "post_self_attn_layernorm";
  s.names.post_ffn_norm = "post_mlp_layernorm";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace glm4v_text_impl

const Family& glm4v_text_family() {
  static const Family family{"glm4v_text", "models/glm4v/modeling_glm4v.py", classes("Glm4vText"), glm4v_text_impl::build};
  return family;
}

}  // namespace neurarch::families
