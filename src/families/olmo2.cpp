// OLMo 2 (models/olmo2/modeling_olmo2.py + configuration_olmo2.py, transformers 4.47.1): the
// norms move after the sublayers (attention -> post_attention_layernorm -> add, MLP ->
// post_feedforward_layernorm -> add, no input norm), and q/k are RMS-normalised over all heads
// at once (q_norm [heads * head_dim], k_norm [kv_heads * head_dim]).
#include "families/olmo.hpp"

namespace neurarch::families {

decoder::DecoderSpec olmo2::spec(const Config& c) {
  decoder::DecoderSpec s = olmo::spec(c);
  s.norm = blocks::NormKind::RMSNorm;
  s.norm_weight = true;
  s.qk_norm = decoder::QkNorm::Full;
  s.names.pre_attn_norm.clear();
  s.names.post_attn_norm = "post_attention_layernorm";
  s.names.pre_ffn_norm.clear();
  s.names.post_ffn_norm = "post_feedforward_layernorm";
  return s;
}

namespace olmo2_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, olmo2::spec(in.config));
}

}  // namespace
}  // namespace olmo2_impl

const Family& olmo2_family() {
  static const Family family{"olmo2", "models/olmo2/modeling_olmo2.py", classes("Olmo2", {heads::ForCausalLM}), olmo2_impl::build};
  return family;
}

}  // namespace neurarch::families
