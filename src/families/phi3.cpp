// Phi-3 (models/phi3/modeling_phi3.py + configuration_phi3.py, transformers 4.47.1): Llama's
// layer with q/k/v fused in qkv_proj and gate/up fused in gate_up_proj, no biases, an optional
// sliding_window. head_dim is hidden / heads and the attention refuses a remainder. The token
// classifier is `classifier` (MPT's head), not `score`.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace phi3_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 32064, .hidden = 3072, .intermediate = 8192, .layers = 32, .heads = 32,
          .positions = 4096, .activation = "silu", .tie_word_embeddings = false});
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  s.names.qkv = "qkv_proj";
  s.names.gate_up = "gate_up_proj";
  s.window = decoder::window_or_none(c, "sliding_window", 0);
  s.token_classifier = "classifier";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace phi3_impl

const Family& phi3_family() {
  static const Family family{"phi3", "models/phi3/modeling_phi3.py",
                             classes("Phi3",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             phi3_impl::build};
  return family;
}

}  // namespace neurarch::families
