// nanochat (models/nanochat/modular_nanochat.py + configuration_nanochat.py, transformers 5.24.0): Llama's stack
// whose RMSNorms carry no weight (Llama 4's L2 norm: the layers' two, the q/k norms after RoPE, the final one),
// an ungated MLP fc1 -> relu2 -> fc2 without biases, q/k/v/o biases by attention_bias, and a logit soft-cap
// (a scalar). The model also normalises the embeddings before the first layer with the same weightless norm;
// having no tensors, that norm is left out of the graph.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace nanochat_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 50304, .hidden = 768, .intermediate = 8192, .layers = 12, .heads = 6, .positions = 2048,
          .activation = "relu2", .tie_word_embeddings = false});
  s.norm_weight = false;
  s.gated = false;
  s.names.up = "fc1";
  s.names.down = "fc2";
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace nanochat_impl

const Family& nanochat_family() {
  static const Family family{"nanochat", "models/nanochat/modeling_nanochat.py",
                             classes("NanoChat", {heads::ForCausalLM}), nanochat_impl::build};
  return family;
}

}  // namespace neurarch::families
