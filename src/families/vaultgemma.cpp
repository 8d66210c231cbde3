// VaultGemma (models/vaultgemma/modeling_vaultgemma.py + configuration_vaultgemma.py,
// transformers 4.57.6): Gemma 2 without the post-attention and post-feedforward norms
// (input_layernorm and pre_feedforward_layernorm only); layer_types alternate sliding and
// full attention starting with sliding.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 256000, .hidden = 2304, .intermediate = 9216, .layers = 26, .heads = 8, .kv_heads = 4,
          .head_dim = 256, .positions = 8192, .activation = "gelu_pytorch_tanh", .tie_word_embeddings = true});
  s.activation = c.text({"hidden_activation"}, "gelu_pytorch_tanh");
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.names.pre_ffn_norm = "pre_feedforward_layernorm";
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 4096);
  s.windows = decoder::windows_from_layer_types(c, s.layers, window);
  if (s.windows.empty())
    for (std::int64_t i = 0; i < s.layers; ++i) s.windows.push_back(i % 2 == 0 ? window : 0);
  return decoder::build_decoder(in, b, s);
}

}  // namespace

const Family& vaultgemma_family() {
  static const Family family{"vaultgemma", "models/vaultgemma/modeling_vaultgemma.py",
                             classes("VaultGemma", {heads::ForCausalLM}), build};
  return family;
}

}  // namespace neurarch::families
