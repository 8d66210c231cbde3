// Persimmon (models/persimmon/modeling_persimmon.py + configuration_persimmon.py, transformers
// 4.47.1): GPT-NeoX-style names (fused query_key_value, dense, dense_h_to_4h/dense_4h_to_h,
// final_layernorm) on a pre-norm layer with LayerNorms, biases everywhere, an ungated relu2 MLP
// and, with qk_layernorm, per-head LayerNorms on q and k. No KV grouping.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace persimmon_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 262144, .hidden = 4096, .intermediate = 16384, .layers = 36, .heads = 64,
          .positions = 16384, .activation = "relu2", .tie_word_embeddings = false});
  s.kv_heads = s.heads;
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  s.qkv_bias = true;
  s.o_bias = true;
  s.gated = false;
  s.mlp_bias = true;
  s.down_bias = true;
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  if (c.flag({"qk_layernorm"}, true)) {
    s.qk_norm = decoder::QkNorm::PerHead;
    s.qk_norm_bias = true;
  }
  s.names.qkv = "query_key_value";
  s.names.o = "dense";
  s.names.q_norm = "q_layernorm";
  s.names.k_norm = "k_layernorm";
  s.names.up = "dense_h_to_4h";
  s.names.down = "dense_4h_to_h";
  s.names.final_norm = "final_layernorm";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace persimmon_impl

const Family& persimmon_family() {
  static const Family family{"persimmon", "models/persimmon/modeling_persimmon.py",
                             classes("Persimmon",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             persimmon_impl::build};
  return family;
}

}  // namespace neurarch::families
