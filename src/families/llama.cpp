// Llama (models/llama/modeling_llama.py + configuration_llama.py, transformers 4.47.1; also what
// model_type "code_llama" builds). RMSNorm pre-norm layers, rotary positions (inv_freq is a
// non-persistent buffer, so nothing is saved for positions), a gated SiLU MLP, grouped-query
// attention when num_key_value_heads < heads. attention_bias puts a bias on q/k/v *and* o;
// mlp_bias on gate/up/down. head_dim may be set freely, so hidden need not divide by heads.
// The QA head keeps its historical `transformer.` prefix.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace llama_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 32000, .hidden = 4096, .intermediate = 11008, .layers = 32, .heads = 32, .positions = 2048,
          .activation = "silu", .tie_word_embeddings = false});
  const bool attention_bias = c.flag({"attention_bias"}, false);
  const bool mlp_bias = c.flag({"mlp_bias"}, false);
  s.qkv_bias = attention_bias;
  s.o_bias = attention_bias;
  s.mlp_bias = mlp_bias;
  s.down_bias = mlp_bias;
  s.qa_prefix = "transformer";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace llama_impl

const Family& llama_family() {
  static const Family family{"llama", "models/llama/modeling_llama.py", classes("Llama", heads::kDecoder), llama_impl::build};
  return family;
}

}  // namespace neurarch::families
