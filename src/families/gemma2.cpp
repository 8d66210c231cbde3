// Gemma 2 (models/gemma2/modeling_gemma2.py + configuration_gemma2.py, transformers 4.47.1):
// Gemma's tensors with four RMSNorms per layer (input, post_attention, pre_feedforward,
// post_feedforward) and a sliding window on every even layer. Soft-capping adds no tensors.
#include "families/gemma2.hpp"

namespace neurarch::families {

decoder::DecoderSpec gemma2::spec(const Config& c) {
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 256000, .hidden = 2304, .intermediate = 9216, .layers = 26, .heads = 8, .kv_heads = 4,
          .head_dim = 256, .positions = 8192, .activation = "gelu_pytorch_tanh", .tie_word_embeddings = true});
  s.activation = c.text({"hidden_activation"}, "gelu_pytorch_tanh");
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.names.post_attn_norm = "post_attention_layernorm";
  s.names.pre_ffn_norm = "pre_feedforward_layernorm";
  s.names.post_ffn_norm = "post_feedforward_layernorm";
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 4096);
  for (std::int64_t i = 0; i < s.layers; ++i) s.windows.push_back(i % 2 == 0 ? window : 0);
  return s;
}

namespace gemma2_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, gemma2::spec(in.config));
}

}  // namespace
}  // namespace gemma2_impl

const Family& gemma2_family() {
  static const Family family{"gemma2", "models/gemma2/modeling_gemma2.py",
                             classes("Gemma2",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             gemma2_impl::build};
  return family;
}

}  // namespace neurarch::families
