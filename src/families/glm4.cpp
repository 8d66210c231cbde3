// GLM-4-0414 (models/glm4/modeling_glm4.py + configuration_glm4.py, transformers 4.57.6): GLM's
// fused gate_up_proj and q/k/v bias, with a sandwich of four RMSNorms per layer: input_layernorm
// -> attention -> post_self_attn_layernorm -> add, post_attention_layernorm -> MLP ->
// post_mlp_layernorm -> add.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace glm4_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 151552, .hidden = 4096, .intermediate = 13696, .layers = 40, .heads = 32, .kv_heads = 2,
          .head_dim = 128, .positions = 131072, .activation = "silu", .tie_word_embeddings = false});
  s.qkv_bias = c.flag({"attention_bias"}, true);
  s.names.gate_up = "gate_up_proj";
  s.names.post_attn_norm = "post_self_attn_layernorm";
  s.names.post_ffn_norm = "post_mlp_layernorm";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace glm4_impl

const Family& glm4_family() {
  static const Family family{"glm4", "models/glm4/modeling_glm4.py",
                             classes("Glm4",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             glm4_impl::build};
  return family;
}

}  // namespace neurarch::families
