// Helium (models/helium/modeling_helium.py + configuration_helium.py, transformers 4.57.6):
// Llama's layer; attention_bias reaches q/k/v but never o_proj, mlp_bias all three MLP
// projections. head_dim is its own key (default 128).
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace helium_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 48000, .hidden = 2560, .intermediate = 7040, .layers = 24, .heads = 20, .kv_heads = 20,
          .head_dim = 128, .positions = 4096, .activation = "silu", .tie_word_embeddings = false});
  s.qkv_bias = c.flag({"attention_bias"}, false);
  s.mlp_bias = c.flag({"mlp_bias"}, false);
  s.down_bias = s.mlp_bias;
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace helium_impl

const Family& helium_family() {
  static const Family family{"helium", "models/helium/modeling_helium.py",
                             classes("Helium",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             helium_impl::build};
  return family;
}

}  // namespace neurarch::families
