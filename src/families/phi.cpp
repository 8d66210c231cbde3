// Phi-1/1.5/2 (models/phi/modeling_phi.py + configuration_phi.py, transformers 4.47.1): one
// LayerNorm feeds attention (q/k/v/dense, all with bias) and an ungated fc1/fc2 MLP in parallel;
// qk_layernorm adds per-head LayerNorms; the LM head has a bias. The attention refuses
// hidden % heads != 0. The token classifier is `classifier`.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace phi_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 51200, .hidden = 2048, .intermediate = 8192, .layers = 24, .heads = 32,
          .positions = 2048, .activation = "gelu_new", .tie_word_embeddings = false});
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  s.qkv_bias = true;
  s.o_bias = true;
  s.gated = false;
  s.mlp_bias = true;
  s.down_bias = true;
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.parallel = true;
  s.names.pre_ffn_norm.clear();
  if (c.flag({"qk_layernorm"}, false)) {
    s.qk_norm = decoder::QkNorm::PerHead;
    s.qk_norm_bias = true;
  }
  s.names.o = "dense";
  s.names.q_norm = "q_layernorm";
  s.names.k_norm = "k_layernorm";
  s.names.up = "fc1";
  s.names.down = "fc2";
  s.names.final_norm = "final_layernorm";
  s.lm_head_bias = true;
  s.token_classifier = "classifier";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace phi_impl

const Family& phi_family() {
  static const Family family{"phi", "models/phi/modeling_phi.py",
                             classes("Phi",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             phi_impl::build};
  return family;
}

}  // namespace neurarch::families
