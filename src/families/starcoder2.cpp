// StarCoder2 (models/starcoder2/modeling_starcoder2.py + configuration_starcoder2.py,
// transformers 4.47.1): Llama's attention with LayerNorms (with bias) and an ungated GPT-style
// MLP (c_fc -> gelu -> c_proj). One use_bias switch (default on) covers q/k/v/o and the MLP.
// Embeddings are tied by default; sliding_window may be null.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace starcoder2_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 49152, .hidden = 3072, .intermediate = 12288, .layers = 30, .heads = 24, .kv_heads = 2,
          .positions = 4096, .activation = "gelu_pytorch_tanh", .tie_word_embeddings = true});
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  const bool bias = c.flag({"use_bias"}, true);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.mlp_bias = bias;
  s.down_bias = bias;
  s.gated = false;
  s.names.up = "c_fc";
  s.names.down = "c_proj";
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.window = decoder::window_or_none(c, "sliding_window", 0);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace starcoder2_impl

const Family& starcoder2_family() {
  static const Family family{"starcoder2", "models/starcoder2/modeling_starcoder2.py",
                             classes("Starcoder2",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             starcoder2_impl::build};
  return family;
}

}  // namespace neurarch::families
