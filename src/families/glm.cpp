// GLM-4 first release (models/glm/modeling_glm.py + configuration_glm.py, transformers 4.47.1):
// Llama's layer with gate and up fused in one gate_up_proj [2 * intermediate, hidden], a bias on
// q/k/v (attention_bias, default on) but never on o_proj, partial rotary (no tensors).
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace glm_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 151552, .hidden = 4096, .intermediate = 13696, .layers = 40, .heads = 32, .kv_heads = 2,
          .head_dim = 128, .positions = 131072, .activation = "silu", .tie_word_embeddings = false});
  s.qkv_bias = c.flag({"attention_bias"}, true);
  s.names.gate_up = "gate_up_proj";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace glm_impl

const Family& glm_family() {
  static const Family family{"glm", "models/glm/modeling_glm.py",
                             classes("Glm",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             glm_impl::build};
  return family;
}

}  // namespace neurarch::families
