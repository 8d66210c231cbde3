// Jais 2 (models/jais2/modular_jais2.py + configuration_jais2.py, transformers 5.24.0): Llama's decoder with
// LayerNorms (weight and bias, layer_norm_eps) in place of the RMSNorms, Nemotron's ungated MLP (up_proj ->
// relu2 -> down_proj) with mlp_bias on both (default true), and q/k/v/o biases by attention_bias (default true).
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace jais2_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 150272, .hidden = 3328, .intermediate = 26624, .layers = 32, .heads = 26, .positions = 8192,
          .activation = "relu2", .tie_word_embeddings = false});
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.gated = false;
  const bool bias = c.flag({"attention_bias"}, true);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.mlp_bias = c.flag({"mlp_bias"}, true);
  s.down_bias = s.mlp_bias;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace jais2_impl

const Family& jais2_family() {
  static const Family family{"jais2", "models/jais2/modeling_jais2.py", classes("Jais2", {heads::ForCausalLM}),
                             jais2_impl::build};
  return family;
}

}  // namespace neurarch::families
