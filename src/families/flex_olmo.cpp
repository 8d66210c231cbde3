// FlexOlmo (models/flex_olmo/modeling_flex_olmo.py + configuration_flex_olmo.py, transformers
// 4.57.6): OLMo 2's layer (no input norms; post_attention_layernorm and post_feedforward_layernorm on
// the sublayer outputs before each residual add; q and k RMS-normalised over all heads at once,
// q_norm [heads x head_dim], k_norm [kv_heads x head_dim]) with OLMoE's sparse MLP in every layer:
// router `mlp.gate` [num_experts, hidden] and experts.<i> of intermediate_size, no shared expert.
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace flex_olmo_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 100352, .hidden = 4096, .intermediate = 11008, .layers = 32, .heads = 32,
          .positions = 4096, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.qk_norm = decoder::QkNorm::Full;
  s.names.pre_attn_norm.clear();
  s.names.post_attn_norm = "post_attention_layernorm";
  s.names.pre_ffn_norm.clear();
  s.names.post_ffn_norm = "post_feedforward_layernorm";
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate,
                             .experts = c.integer({"num_experts"}, 7), .top_k = c.integer({"num_experts_per_tok"}, 5),
                             .activation = s.activation};
  s.mlp_override = moe::layer_hook({}, moe::experts_under(base));
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace flex_olmo_impl

const Family& flex_olmo_family() {
  static const Family family{"flex_olmo", "models/flex_olmo/modeling_flex_olmo.py",
                             classes("FlexOlmo", {heads::ForCausalLM}), flex_olmo_impl::build};
  return family;
}

}  // namespace neurarch::families
