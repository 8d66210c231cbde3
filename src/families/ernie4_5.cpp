// ERNIE 4.5 dense (models/ernie4_5/modeling_ernie4_5.py + configuration_ernie4_5.py,
// transformers 4.57.6): Llama's layer; one use_bias switch covers q/k/v/o and the MLP.
// Embeddings are tied by default.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace ernie4_5_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 103424, .hidden = 1024, .intermediate = 3072, .layers = 18, .heads = 16, .kv_heads = 2,
          .head_dim = 128, .positions = 131072, .activation = "silu", .tie_word_embeddings = true});
  const bool bias = c.flag({"use_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.mlp_bias = bias;
  s.down_bias = bias;
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace ernie4_5_impl

const Family& ernie4_5_family() {
  static const Family family{"ernie4_5", "models/ernie4_5/modeling_ernie4_5.py",
                             classes("Ernie4_5", {heads::ForCausalLM}), ernie4_5_impl::build};
  return family;
}

}  // namespace neurarch::families
