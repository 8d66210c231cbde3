// Granite (models/granite/modeling_granite.py + configuration_granite.py, transformers 4.47.1):
// Llama's tensors; its embedding/residual/attention/logit multipliers are scalars in the config,
// not weights. head_dim is hidden / heads (no head_dim key in this release).
#include "families/granite.hpp"

namespace neurarch::families {

decoder::DecoderSpec granite::spec(const Config& c) {
  return spec(c, {.vocab = 32000, .hidden = 4096, .intermediate = 11008, .layers = 32, .heads = 32,
                  .positions = 2048, .activation = "silu", .tie_word_embeddings = false});
}

decoder::DecoderSpec granite::spec(const Config& c, const decoder::LlamaDefaults& defaults) {
  decoder::DecoderSpec s = decoder::read_llama_config(c, defaults);
  s.head_dim = s.hidden / s.heads;
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  return s;
}

namespace granite_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  decoder::DecoderSpec s = granite::spec(in.config);
  s.mlp_bias = in.config.flag({"mlp_bias"}, false);
  s.down_bias = s.mlp_bias;
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace granite_impl

const Family& granite_family() {
  static const Family family{"granite", "models/granite/modeling_granite.py",
                             classes("Granite", {heads::ForCausalLM}), granite_impl::build};
  return family;
}

}  // namespace neurarch::families
