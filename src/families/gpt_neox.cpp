// GPT-NeoX / Pythia (models/gpt_neox/modeling_gpt_neox.py + configuration_gpt_neox.py,
// transformers 4.47.1): LayerNorms with bias, fused query_key_value and dense (bias per
// attention_bias, default on), a biased dense_h_to_4h/dense_4h_to_h MLP, rotary on rotary_pct of
// each head (no tensors). use_parallel_residual (default on) gives x + attn(ln1(x)) + mlp(ln2(x)).
// The LM head is `embed_out`, untied by default. The attention refuses hidden % heads != 0.
#include "families/gpt_neox.hpp"

namespace neurarch::families {
namespace gpt_neox_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, gpt_neox::spec(in.config, {}));
}

}  // namespace
}  // namespace gpt_neox_impl
using namespace gpt_neox_impl;

namespace gpt_neox {

decoder::DecoderSpec spec(const Config& c, const Defaults& d) {
  decoder::DecoderSpec s;
  s.vocab = c.dim({"vocab_size"}, d.vocab);
  s.hidden = c.dim({"hidden_size"}, d.hidden);
  s.layers = c.dim({"num_hidden_layers"}, d.layers);
  s.heads = c.dim({"num_attention_heads"}, d.heads);
  s.kv_heads = s.heads;
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  s.intermediate = c.dim({"intermediate_size"}, d.intermediate);
  s.activation = c.text({"hidden_act"}, "gelu");
  s.positions = c.dim({"max_position_embeddings"}, d.positions);
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, d.tie_word_embeddings);
  const bool bias = c.flag({"attention_bias"}, true);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.gated = false;
  s.mlp_bias = true;
  s.down_bias = true;
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.parallel = c.flag({"use_parallel_residual"}, true);
  s.prefix = "gpt_neox";
  s.qa_prefix = "gpt_neox";
  s.lm_head = "embed_out";
  s.token_classifier = "classifier";
  s.names = {.embed = "embed_in", .attn = "attention", .o = "dense", .qkv = "query_key_value", .up = "dense_h_to_4h",
             .down = "dense_4h_to_h", .final_norm = "final_layer_norm"};
  return s;
}

}  // namespace gpt_neox

const Family& gpt_neox_family() {
  static const Family family{"gpt_neox", "models/gpt_neox/modeling_gpt_neox.py",
                             classes("GPTNeoX", heads::kDecoder), gpt_neox_impl::build};
  return family;
}

}  // namespace neurarch::families
