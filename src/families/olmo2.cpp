// OLMo 2 (models/olmo2/modeling_olmo2.py + configuration_olmo2.py, transformers 4.47.1): the
// norms move after the sublayers (attention -> post_attention_layernorm -> add, MLP ->
// post_feedforward_layernorm -> add, no input norm), and q/k are RMS-normalised over all heads
// at once (q_norm [heads * head_dim], k_norm [kv_heads * head_dim]).
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 50304, .hidden = 4096, .intermediate = 11008, .layers = 32, .heads = 32,
          .positions = 2048, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.qk_norm = decoder::QkNorm::Full;
  s.names.pre_attn_norm.clear();
  s.names.post_attn_norm = "post_attention_layernorm";
  s.names.pre_ffn_norm.clear();
  s.names.post_ffn_norm = "post_feedforward_layernorm";
  return decoder::build_decoder(in, b, s);
}

}  // namespace

const Family& olmo2_family() {
  static const Family family{"olmo2", "models/olmo2/modeling_olmo2.py", classes("Olmo2", {heads::ForCausalLM}), build};
  return family;
}

}  // namespace neurarch::families
