// Gemma (models/gemma/modeling_gemma.py + configuration_gemma.py, transformers 4.47.1): Llama's
// tensors with a 256-wide head_dim by default (hidden need not divide), a GeGLU MLP and tied
// embeddings by default; the (1 + w) RMSNorm and the sqrt(hidden) embedding scale add no
// tensors. attention_bias covers q/k/v/o.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace gemma_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 256000, .hidden = 3072, .intermediate = 24576, .layers = 28, .heads = 16, .kv_heads = 16,
          .head_dim = 256, .positions = 8192, .activation = "gelu_pytorch_tanh", .tie_word_embeddings = true});
  // hidden_activation, when set, overrides the legacy hidden_act.
  if (c.has("hidden_activation")) s.activation = c.text({"hidden_activation"});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace gemma_impl

const Family& gemma_family() {
  static const Family family{"gemma", "models/gemma/modeling_gemma.py",
                             classes("Gemma",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             gemma_impl::build};
  return family;
}

}  // namespace neurarch::families
