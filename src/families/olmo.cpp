// OLMo (models/olmo/modeling_olmo.py + configuration_olmo.py, transformers 4.47.1): Llama's
// layer whose LayerNorms have no parameters at all (so the norm nodes own no tensors);
// attention_bias covers q/k/v/o. clip_qkv clamps activations and adds nothing.
#include "families/olmo.hpp"

namespace neurarch::families {

decoder::DecoderSpec olmo::spec(const Config& c) {
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 50304, .hidden = 4096, .intermediate = 11008, .layers = 32, .heads = 32,
          .positions = 2048, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_weight = false;
  return s;
}

namespace olmo_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, olmo::spec(in.config));
}

}  // namespace
}  // namespace olmo_impl

const Family& olmo_family() {
  static const Family family{"olmo", "models/olmo/modeling_olmo.py", classes("Olmo", {heads::ForCausalLM}), olmo_impl::build};
  return family;
}

}  // namespace neurarch::families
