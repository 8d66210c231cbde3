// StableLM (models/stablelm/modeling_stablelm.py + configuration_stablelm.py, transformers
// 4.47.1): Llama's layer with LayerNorms (weight and bias), q/k/v bias per use_qkv_bias, and
// optionally a parallel residual (use_parallel_residual: no post-attention norm) and per-head
// q/k LayerNorm modules (qk_layernorm: q_layernorm.norms.<h>, weight only). Partial rotary adds
// nothing. The attention refuses hidden % heads != 0.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace stablelm_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 50304, .hidden = 2560, .intermediate = 6912, .layers = 32, .heads = 32, .kv_heads = 32,
          .positions = 4096, .activation = "silu", .tie_word_embeddings = false});
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  s.qkv_bias = c.flag({"use_qkv_bias"}, false);
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.parallel = c.flag({"use_parallel_residual"}, false);
  if (s.parallel) s.names.pre_ffn_norm.clear();
  if (c.flag({"qk_layernorm"}, false)) {
    s.qk_norm = decoder::QkNorm::ModulePerHead;
    s.names.q_norm = "q_layernorm";
    s.names.k_norm = "k_layernorm";
  }
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace stablelm_impl

const Family& stablelm_family() {
  static const Family family{"stablelm", "models/stablelm/modeling_stablelm.py",
                             classes("StableLm",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             stablelm_impl::build};
  return family;
}

}  // namespace neurarch::families
